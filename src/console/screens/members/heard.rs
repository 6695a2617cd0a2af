//! What the Members screen hears, routed ([`Table::on_msg`]): the
//! organization's members land in the member picker (held among the
//! shell's overlays, lent while it is open); the role `:role NAME` looked
//! for is said, or handed back to the shell to open ([`Heard`]).

use super::Msg;
use super::list::Members;
use super::picker::Picker;
use crate::console::kit::notice::Notice;
use crate::console::screens::Ctx;
use crate::console::table::Table;

/// What the shell is to do after Members heard a message.
#[derive(Debug, PartialEq)]
pub enum Heard {
    /// Show this role's members (by id, and its name), from Roles.
    OpenRole { id: String, name: String },
}

impl Table<Members> {
    /// One of this screen's messages (`Screens::wants` dropped the
    /// people for a picker since closed or searched again).
    pub fn on_msg(&mut self, msg: Msg, ctx: &mut Ctx, picker: Option<&mut Picker>) -> Option<Heard> {
        *ctx.dirty = true;
        match msg {
            Msg::People { people, in_role, .. } => {
                if let Some(picker) = picker {
                    picker.arrived(people, in_role);
                }
                None
            }
            Msg::RoleFound { name, found } => match found {
                Ok(Some((id, name))) => {
                    *ctx.notice = None;
                    Some(Heard::OpenRole { id, name })
                }
                Ok(None) => {
                    *ctx.notice = Some(Notice::error(format!(
                        "no role is named \"{name}\": :role and Tab completes the names"
                    )));
                    None
                }
                Err(error) => {
                    *ctx.notice = Some(Notice::error(format!("cannot look for the role: {error}")));
                    None
                }
            },
        }
    }
}
