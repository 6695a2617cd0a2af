//! A delivery's words that other screens say too: Health names a failing
//! row's recipient and error as the deliveries do.

/// "finance@…: 550 mailbox unavailable": a recipient and its error, the
/// address's domain left out where the error names it already.
pub fn who_and_why(recipient: &str, message: &str) -> String {
    match recipient.split_once('@') {
        Some((local, domain)) if !domain.is_empty() && message.contains(domain) => {
            format!("{local}@…: {message}")
        }
        _ => format!("{recipient}: {message}"),
    }
}
