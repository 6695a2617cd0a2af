//! Widgets that know nothing of roles or subscriptions: the form, the
//! member picker, a short chooser (several or one), the switcher of
//! `:ctx`, `:org` and `:project`, the `:` command line, the questions and a
//! bulk run's results, and the boxes they are drawn in. Each holds its state,
//! takes keys, says what a key did, and draws itself.

pub mod chooser;
pub mod command;
pub mod form;
pub mod picker;
pub mod popup;
pub mod question;
pub mod results;
pub mod switcher;
