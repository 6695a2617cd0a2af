//! What People shares with the screens next to it, by name: the role
//! index (who holds which role), which People reads when it is first shown
//! and with `r`, and keeps in step with every membership written
//! (`news.rs`). A person's page is gathered with it (`person/handle.rs`
//! waits for it, `Person::index_arrived` and `index_failed` hear when it
//! lands); `a` on People or a page chooses roles from it (`choose.rs`).
//! Reading it once for all of them, rather than once a screen, is why
//! it is shared; only People writes it.

use std::sync::Arc;

use super::list::People;
use crate::console::table::Table;
use crate::people::RoleIndex;

impl Table<People> {
    /// Who holds which role, once read (shared, not copied).
    pub fn role_index(&self) -> Option<Arc<RoleIndex>> {
        self.resource.index.clone()
    }
}
