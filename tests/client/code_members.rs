//! The members of an as-code file's roles, set aside as the file is read
//! rather than held (issue 33, req 2): each problem of a member at the
//! line and column it had when the file was held whole, in the same
//! words, and the same plan whatever the lists' layout (one a line, all
//! on one line, comments, CRLF line ends).

use super::apply::Workspace;
use super::cli::orgdeck;
use crate::support::TestServer;

/// The line and column (1-based, in characters) of the first `needle`.
fn at(text: &str, needle: &str) -> (usize, usize) {
    let offset = text.find(needle).unwrap_or_else(|| panic!("{needle} in {text}"));
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    (line, column)
}

/// Every members list of `text` written on one line, with a comment.
fn on_one_line(text: &str) -> String {
    let mut out = Vec::new();
    let mut list: Option<Vec<String>> = None;
    for line in text.lines() {
        match (&mut list, line) {
            (None, "members = [") => list = Some(Vec::new()),
            (Some(members), "]") => {
                out.push(format!("members = [ {}] # one line", members.join(" ")));
                list = None;
            }
            (Some(members), member) => members.push(member.trim().to_string()),
            (None, other) => out.push(other.to_string()),
        }
    }
    out.join("\n") + "\n"
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_problems_keep_their_places_and_plans_their_words() {
    let server = TestServer::demo().await;
    let key = server.key(&["*"]);
    let file = Workspace::new("roles.toml");
    let run = orgdeck(&server, &key, &["export", "--roles", file.arg()], None).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let exported = file.read();

    // A bad address and a duplicate in another case in a list one a line,
    // after a comment with a `]`; a list on one line with a literal
    // string and an escape: each problem where the file has it, in order.
    let edited = exported
        .replacen(
            "  \"jonas.berg@hedgebox.dev\",\n",
            "  \"jonas.berg@hedgebox.dev\", # ] a comment\n  \"not ]an address\",\n  \"JONAS.Berg@hedgebox.dev\",\n",
            1,
        )
        .replacen(
            "members = [\n  \"fatima.alsayed@hedgebox.dev\",\n  \"tomas.novak@hedgebox.dev\",\n]",
            "members = [\"fatima.alsayed@hedgebox.dev\", 'bad\\u0041', \"tom\\u0061s.novak@hedgebox.dev\"]",
            1,
        );
    file.write(&edited);
    let run = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let (bad, twice, literal) = (
        at(&edited, "\"not ]an address\""),
        at(&edited, "\"JONAS.Berg"),
        at(&edited, "'bad"),
    );
    assert_eq!(
        run.stderr.replace(file.arg(), "FILE"),
        format!(
            "orgdeck: FILE has 3 problems; nothing was compared:\n  FILE: line {}, column {}: \"not ]an address\" is not an e-mail address\n  FILE: line {}, column {}: JONAS.Berg@hedgebox.dev is listed twice in the role \"Data\"\n  FILE: line {}, column {}: \"bad\\u0041\" is not an e-mail address\n",
            bad.0, bad.1, twice.0, twice.1, literal.0, literal.1
        )
    );
    // Where the file has it: the third line of the list, column 3.
    assert_eq!(twice, (26, 3), "{edited}");

    // Someone who is not a member, in a multi-line string, CRLF line ends.
    let edited = exported
        .replacen(
            "  \"zoe@hedgebox.dev\",\n",
            "  \"zoe@hedgebox.dev\",\n  \"\"\"nobody@nowhere.example\"\"\",\n",
            1,
        )
        .replace('\n', "\r\n");
    file.write(&edited);
    let run = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    let stranger = at(&edited, "\"\"\"nobody");
    assert_eq!(
        run.stderr.replace(file.arg(), "FILE"),
        format!(
            "orgdeck: FILE has 1 problem; nothing was compared:\n  FILE: line {}, column {}: nobody@nowhere.example is not a member of the organization\n",
            stranger.0, stranger.1
        )
    );

    // Members added (in another case) and removed, a role renamed: the
    // same plan one a line, on one line and with CRLF.
    let edited = exported
        .replacen(
            "  \"zoe@hedgebox.dev\",\n",
            "  \"zoe@hedgebox.dev\",\n  \"Elif.Demir@hedgebox.dev\",\n",
            1,
        )
        .replacen("  \"wei.zhang@hedgebox.dev\",\n]", "]", 1)
        .replacen("name = \"Finance\"", "name = \"Money\"", 1);
    let mut plans = Vec::new();
    for layout in [edited.clone(), on_one_line(&edited), edited.replace('\n', "\r\n")] {
        file.write(&layout);
        let text = orgdeck(&server, &key, &["plan", "--prune", file.arg()], None).await;
        assert_eq!(text.code, 2, "{}\n{layout}", text.stderr);
        let json = orgdeck(
            &server,
            &key,
            &["plan", "--prune", "-o", "json", file.arg()],
            None,
        )
        .await;
        assert_eq!(json.code, 2, "{}", json.stderr);
        plans.push((text.stdout, json.stdout));
    }
    let (text, _) = &plans[0];
    for line in [
        "- member wei.zhang@hedgebox.dev",
        "name: \"Finance\" → \"Money\"",
        "+ member Elif.Demir@hedgebox.dev",
        "Plan: 0 to add, 3 to change, 0 to remove.",
    ] {
        assert!(text.contains(line), "{line} in {text}");
    }
    // (On one line the roles stand on other lines: JSON says so.)
    assert_eq!(plans[1].0, plans[0].0);
    assert_eq!(plans[2], plans[0]);

    // As exported: nothing to do, and apply changes nothing, the file
    // byte for byte as it was.
    file.write(&on_one_line(&exported));
    let run = orgdeck(&server, &key, &["plan", file.arg()], None).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    let run = orgdeck(&server, &key, &["apply", "--yes", file.arg()], None).await;
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, "Nothing to do: the server matches the file.\n");
    assert_eq!(file.read(), on_one_line(&exported));
}
