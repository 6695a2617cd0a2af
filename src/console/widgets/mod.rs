//! The console's floor 1: widgets that know nothing of roles or
//! subscriptions: the form, a short chooser (several or one), the switcher
//! of `:ctx`, `:org` and `:project`, the questions and a bulk run's
//! results, and the boxes they are drawn in. Each holds its state, takes
//! keys, says what a key did, and draws itself. They name the kit alone:
//! the member picker (people's) and the `:` command grammar (the shell's)
//! live with what they serve.

pub mod chooser;
pub mod form;
pub mod popup;
pub mod question;
pub mod results;
pub mod switcher;
