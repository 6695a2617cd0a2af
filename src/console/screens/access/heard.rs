//! What the Access tab hears of other screens' writes: who reaches what
//! changed (`Change::AccessChanged`, after a membership, a level, a role
//! deleted, an offboarding or a rule), so the grid shown, once read, is
//! read again, the project the change was about first (every project's
//! cells may have moved for a change of people).

use super::Ask;
use crate::console::screens::heard::Heard;
use crate::console::screens::{Change, Ctx, Screens};

impl Screens {
    /// The news the Access tab hears.
    pub fn access_on_change(&mut self, change: &Change, ctx: &mut Ctx) -> Heard {
        let Change::AccessChanged { project } = change else {
            return Heard::default();
        };
        let access = &mut self.access;
        if !access.loaded().asked {
            return Heard::default();
        }
        let kind = access.kind;
        let first = project.or(access.project);
        let (ticket, stop) = access.of_kind(kind).start();
        access.shown.clear();
        access.columns.clear();
        *ctx.dirty = true;
        Some(Ask::Read {
            ticket,
            kind,
            organization: ctx.scope.organization.to_owned(),
            first,
            stop,
        })
        .into()
    }
}
