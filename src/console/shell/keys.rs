//! A key pressed: to the widget open over the screen, or through the
//! keymap to an action on the list shown.

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tui_input::Input;

use super::keymap::Action;
use super::{App, Effect, Mode, Notice, ScreenId};
use crate::console::screens::bulk::Verb;

impl App {
    pub(super) fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.window.quit = true;
            return Vec::new();
        }
        // Esc while the rules are read for a preview: nothing is sent.
        if key.code == KeyCode::Esc
            && matches!(self.mode, Mode::Normal | Mode::Picker(_))
            && self.stop_preview()
        {
            return Vec::new();
        }
        match &mut self.mode {
            Mode::Help => {
                self.help_key(key);
                Vec::new()
            }
            Mode::Filter(_) => self.filter_key(key),
            Mode::Command(_) => self.command_key(key),
            Mode::Form(..) => self.form_key(key),
            Mode::Confirm(_) => self.confirm_key(key),
            Mode::Picker(_) => self.picker_key(key),
            Mode::Switcher(_) => self.switcher_key(key),
            Mode::Results => self.results_key(key),
            Mode::Chooser(..) => self.chooser_key(key),
            Mode::Normal => match self.keymap.action(&key, self.shown()) {
                Some(action) => self.act(action),
                None => {
                    self.window.dirty = false;
                    Vec::new()
                }
            },
        }
    }

    /// j/k and the page keys scroll the help, as far as its last line;
    /// any other key closes it.
    fn help_key(&mut self, key: KeyEvent) {
        let last = super::draw::help::scroll_limit(self);
        let scroll = &mut self.overlays.scroll.help;
        match key.code {
            KeyCode::Char('j') | KeyCode::Down => *scroll = scroll.saturating_add(1),
            KeyCode::Char('k') | KeyCode::Up => *scroll = scroll.saturating_sub(1),
            KeyCode::PageDown => *scroll = scroll.saturating_add(10),
            KeyCode::PageUp => *scroll = scroll.saturating_sub(10),
            _ => self.mode = Mode::Normal,
        }
        self.overlays.scroll.help = self.overlays.scroll.help.min(last);
    }

    /// What a key's action does: first what may stop it (a write ruled
    /// out, rows marked, a row not loaded), then the action itself.
    pub(super) fn act(&mut self, action: Action) -> Vec<Effect> {
        // A write the key, --read-only or a switch under way rules out.
        if let Some(reason) = self.unavailable(action) {
            self.notice.shown = Some(Notice::error(format!("not available: {reason}")));
            return Vec::new();
        }
        // With rows marked, d, p and t act on every one of them.
        let verb = match action {
            Action::Delete => Some(Verb::Delete),
            Action::Pause => Some(Verb::Pause),
            Action::TestDelivery => Some(Verb::Test),
            _ => None,
        };
        if let Some(effects) = verb.and_then(|verb| self.bulk_key(verb)) {
            return effects;
        }
        // A row not loaded: why, rather than what the key does on a row.
        if let Some(effects) = self.not_loaded(action) {
            return effects;
        }
        self.perform(action)
    }

    /// The action itself: a match of one-line arms, one an action, each
    /// calling what does it.
    fn perform(&mut self, action: Action) -> Vec<Effect> {
        let height = self.table_height() as i64;
        match action {
            Action::Quit => self.back(true),
            Action::Back => self.back(false),
            Action::Show(list) => self.switch(list),
            Action::NextTab => self.switch(self.next_tab(1)),
            Action::PreviousTab => self.switch(self.next_tab(-1)),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-height),
            Action::PageDown => self.move_by(height),
            Action::Top => self.move_to(0),
            Action::Bottom => self.move_to(i64::MAX),
            Action::Open => self.open(),
            Action::SetLevel => self.lend_then_follow(|screens, ctx| screens.choose_level_here(ctx)),
            Action::Offboard => self.lend_then_follow(|screens, ctx| screens.offboard_here(ctx)),
            Action::Grants => self.lend_then_follow(|screens, ctx| screens.open_grants(ctx)),
            Action::Filter => self.open_filter(),
            Action::Command => self.open_command_line(),
            Action::Refresh => self.refresh(),
            Action::Sort => self.cycle_sort(),
            Action::ToggleDeleted => self.toggle_deleted(),
            Action::ToggleJson => self.toggle_json(),
            Action::DetailDown => self.scroll_detail_down(),
            Action::DetailUp => self.scroll_detail_up(),
            Action::CopyId => self.copy(false),
            Action::CopyJson => self.copy(true),
            Action::Help => self.open_help(),
            Action::New => self.new_item(),
            Action::Edit => self.edit_item(),
            Action::Delete => self.delete_item(),
            Action::Restore => self.restore_item(),
            Action::Assign => self.assign(),
            Action::OnlyFailed => self.only_failed(),
            Action::TestDelivery => self.test_delivery(),
            Action::Pause => self.pause(),
            Action::CycleState => self.narrow_to(self.screens.subscriptions.next_state()),
            Action::LookFurther => self.look_further(),
            // Space where a page makes it its own (an offboarding's options).
            Action::Mark if self.page_takes_space() => self.space_on_page(),
            Action::Mark => self.toggle_mark(),
            Action::MarkAll => self.mark_all(),
            Action::Overdue => self.narrow_to(self.screens.subscriptions.overdue_or_all()),
            Action::Access(key) => self.lend_then_follow(|screens, ctx| screens.access_key(key, ctx)),
        }
    }

    /// `/`: the filter line opens with what the list is filtered by.
    fn open_filter(&mut self) -> Vec<Effect> {
        let typed = self.screens.shown(self.shown()).filter().to_string();
        self.mode = Mode::Filter(Input::new(typed));
        Vec::new()
    }

    /// `:`: the command line opens, empty.
    fn open_command_line(&mut self) -> Vec<Effect> {
        self.mode = Mode::Command(Input::default());
        Vec::new()
    }

    /// Subscriptions deleted are shown or hidden, and the list fetched
    /// again.
    fn toggle_deleted(&mut self) -> Vec<Effect> {
        self.screens.subscriptions.toggle_deleted();
        self.fetch_visible()
    }

    /// `v`: the detail turns between its lines and its JSON.
    fn toggle_json(&mut self) -> Vec<Effect> {
        // Where the screen has no room for the pane, `v` opens the detail over the table.
        if !self.has_detail_pane() && !self.overlays.detail_open {
            self.overlays.detail_open = true;
        } else {
            self.overlays.detail_json = !self.overlays.detail_json;
        }
        self.overlays.scroll.detail = 0;
        Vec::new()
    }

    /// The detail scrolls down, as far as its last line.
    fn scroll_detail_down(&mut self) -> Vec<Effect> {
        let last = super::draw::detail::scroll_limit(self);
        self.overlays.scroll.detail = self.overlays.scroll.detail.saturating_add(3).min(last);
        Vec::new()
    }

    /// The detail scrolls up.
    fn scroll_detail_up(&mut self) -> Vec<Effect> {
        self.overlays.scroll.detail = self.overlays.scroll.detail.saturating_sub(3);
        Vec::new()
    }

    /// `?`: the help opens at its top.
    fn open_help(&mut self) -> Vec<Effect> {
        self.overlays.scroll.help = 0;
        self.mode = Mode::Help;
        Vec::new()
    }

    /// `a`: a person's roles are chosen on People and a person's page;
    /// elsewhere the picker opens.
    fn assign(&mut self) -> Vec<Effect> {
        match self.shown() {
            ScreenId::People | ScreenId::Person => {
                self.lend_then_follow(|screens, ctx| screens.choose_roles_here(ctx))
            }
            _ => self.open_picker(),
        }
    }

    /// Deliveries: only the failed ones, or all again, fetched anew.
    fn only_failed(&mut self) -> Vec<Effect> {
        self.screens.deliveries.toggle_failed();
        self.reload(crate::console::screens::ScreenId::Deliveries, true)
    }

    /// Space on a page that makes it its own (an offboarding's options).
    fn space_on_page(&mut self) -> Vec<Effect> {
        let (screens, mut ctx) = self.lend();
        if let Some(page) = screens.page_mut(ctx.shown) {
            page.space(&mut ctx);
        }
        Vec::new()
    }

    /// Esc and q: dismiss an error, clear the marks (Esc), close the
    /// detail shown over the table, leave a list opened from another (back
    /// where it was opened); `q` on the top level quits.
    fn back(&mut self, may_quit: bool) -> Vec<Effect> {
        // An error waits to be dismissed; a flash of success fades by itself.
        if self.notice.shown.take_if(|notice| notice.error).is_some() {
            return Vec::new();
        }
        // Esc clears the marks before it means back.
        if !may_quit && self.clear_marks() {
            return Vec::new();
        }
        // Esc on Health stops a look under way (q, too, before leaving).
        if self.stop_look() {
            return Vec::new();
        }
        // Esc on Access stops its read under way (what arrived stays).
        if self.shown() == ScreenId::Access && {
            let (screens, mut ctx) = self.lend();
            screens.access_stop(&mut ctx)
        } {
            return Vec::new();
        }
        // Esc on the switch preview stops its read under way.
        if self.shown() == ScreenId::Switch && {
            let (screens, mut ctx) = self.lend();
            screens.switch_stop(&mut ctx)
        } {
            return Vec::new();
        }
        // Esc on a filtered list clears the filter before it means back
        // (the detail over the table closes first: it is on top).
        if !may_quit
            && !self.overlays.detail_open
            && !self.screens.shown(self.navigation.shown).filter().is_empty()
        {
            self.notice.shown = Some(Notice::done("filter cleared".into()));
            return self.filter_to(String::new());
        }
        // The detail over the table closes; the pane beside it stays as it
        // is (fields or JSON, `v` says which): Esc goes back at once.
        if self.overlays.detail_open {
            self.overlays.detail_open = false;
            self.overlays.detail_json = false;
        } else if let Some(heard) = {
            let (screens, mut ctx) = self.lend();
            screens.people_back(&mut ctx)
        } {
            return self.follow(heard);
        } else if let Some(parent) = self.screens.shown(self.navigation.shown).parent() {
            self.screens.shown_mut(self.navigation.shown).close();
            let (tab, shown) = self
                .navigation
                .opened_from
                .take()
                .unwrap_or((self.navigation.tab, parent));
            self.navigation.tab = tab;
            self.navigation.shown = shown;
            return self.fetch_visible();
        } else if may_quit {
            self.window.quit = true;
        }
        Vec::new()
    }

    /// `y` and `Y`: the selected row's id or JSON, to the clipboard.
    fn copy(&mut self, json: bool) -> Vec<Effect> {
        let table = self.screens.shown(self.shown());
        let text = if json {
            table.selected_json()
        } else {
            table.selected_id()
        };
        match text {
            Some(text) => {
                let what = if json { "the row's JSON" } else { "the id" };
                self.notice.shown = Some(Notice::done(format!("copied {what} to the clipboard")));
                vec![Effect::Copy(text)]
            }
            None => Vec::new(),
        }
    }
}
