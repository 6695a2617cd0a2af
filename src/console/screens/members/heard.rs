//! What the Members screen hears, routed ([`Table::on_msg`]): the
//! organization's members land in the member picker (held among the
//! shell's overlays, lent while it is open); the role `:role NAME` looked
//! for is said, or handed back to the shell to open (a [`Heard`] step).

use super::Msg;
use super::list::Members;
use super::picker::Picker;
use crate::console::kit::notice::Notice;
use crate::console::screens::Ctx;
use crate::console::screens::heard::{Heard, Step};
use crate::console::table::Table;

impl Table<Members> {
    /// One of this screen's messages (`Screens::wants` dropped the
    /// people for a picker since closed or searched again).
    pub fn on_msg(&mut self, msg: Msg, ctx: &mut Ctx, picker: Option<&mut Picker>) -> Heard {
        *ctx.dirty = true;
        match msg {
            Msg::People { people, in_role, .. } => {
                if let Some(picker) = picker {
                    picker.arrived(people, in_role);
                }
                Heard::default()
            }
            Msg::RoleFound { name, found } => match found {
                Ok(Some((id, name))) => {
                    *ctx.notice = None;
                    Heard::step(Step::OpenRole { id, name })
                }
                Ok(None) => {
                    *ctx.notice = Some(Notice::error(format!(
                        "no role is named \"{name}\": :role and Tab completes the names"
                    )));
                    Heard::default()
                }
                Err(error) => {
                    *ctx.notice = Some(Notice::error(format!("cannot look for the role: {error}")));
                    Heard::default()
                }
            },
        }
    }
}
