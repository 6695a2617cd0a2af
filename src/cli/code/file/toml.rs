//! TOML read in bounded memory: `toml_edit` holds some 50 bytes for each
//! token of what it parses (a blank line is one), so a file is first
//! lexed in one streaming pass that (1) writes every run of blank and
//! comment lines as one line break, and (2) cuts the file at its top-level
//! table headers (`[orgdeck]`, `[[roles]]`, `[[subscriptions]]`, outside
//! any string or value). Each piece is then parsed alone and the pieces
//! joined as TOML joins tables, so what is held at once is one entry's
//! tokens and the tree of the file. A file whose headers are not bare
//! names (`[a.b]`, `["x"]`) is parsed whole, after (1).
//!
//! Positions are those of the file as written, each found by one forward
//! sweep over it. The text read is the file with its roles' members set
//! aside (`scan`): every line and column as written, and its offsets
//! mapped back to the file's.

use std::collections::HashMap;
use std::ops::Range;

use toml_parser::lexer::TokenKind;

use super::node::{Node, Positions, Sweep};
use super::read::Checked;
use super::{Pos, Problem};

/// The file as `toml_edit` reads it: trivia runs made short, cut into
/// pieces, with the way back to the file's own offsets.
struct Prepared {
    text: String,
    /// Where each stretch of `text` starts, and where it came from in the
    /// file: offsets between two starts map linearly.
    stretches: Vec<(usize, usize)>,
    /// The pieces of `text`, in order: what comes before the first header,
    /// then one piece a header.
    pieces: Vec<Piece>,
}

struct Piece {
    range: Range<usize>,
    /// `[name]` or `[[name]]`; `None` for what comes before the first
    /// header, or for the whole file parsed at once.
    header: Option<Header>,
}

#[derive(Clone)]
struct Header {
    name: String,
    array: bool,
}

impl Prepared {
    /// The file's offset of an offset of `text`.
    fn original(&self, offset: usize) -> usize {
        super::node::original(&self.stretches, offset)
    }
}

/// Lexes the file once, streaming: runs of whitespace, comments and line
/// breaks holding two breaks or more become one break; top-level headers
/// cut pieces.
fn prepare(file: &str) -> Prepared {
    // At most the file (trivia only shrink): allocated once.
    let mut text = String::with_capacity(file.len());
    let mut stretches = vec![(0, 0)];
    let mut copied = 0; // the file's bytes up to here are in `text` or dropped
    let mut trivia: Option<(usize, usize, usize)> = None; // (start, first break, breaks)
    let mut cuts: Vec<(usize, Option<Header>)> = vec![(0, None)];
    let mut simple = true;
    let mut line_start = true;
    let mut depth = 0usize;
    let mut header: Option<(usize, Vec<TokenKind>, Vec<String>)> = None;
    for token in toml_parser::Source::new(file).lex() {
        let kind = token.kind();
        let span = token.span();
        let is_trivia = matches!(
            kind,
            TokenKind::Whitespace | TokenKind::Comment | TokenKind::Newline
        );
        if is_trivia {
            let run = trivia.get_or_insert((span.start(), span.start(), 0));
            if kind == TokenKind::Newline {
                if run.2 == 0 {
                    run.1 = span.start();
                }
                run.2 += 1;
            }
        } else if let Some((start, first_break, breaks)) = trivia.take()
            && breaks >= 2
        {
            // The run becomes one line break, standing where its first was.
            text.push_str(&file[copied..start]);
            stretches.push((text.len(), first_break));
            text.push('\n');
            stretches.push((text.len(), span.start()));
            copied = span.start();
        }
        if kind == TokenKind::Eof {
            break;
        }
        // Where the file's lines stand: a `[` first on a line at the top
        // level opens a header, which ends with its line.
        if let Some((start, kinds, names)) = &mut header {
            match kind {
                TokenKind::Newline => {
                    let (start, kinds, names) = (*start, std::mem::take(kinds), std::mem::take(names));
                    header = None;
                    line_start = true;
                    let found = simple_header(&kinds, &names);
                    simple &= found.is_some();
                    cuts.push((start, found));
                }
                TokenKind::Whitespace | TokenKind::Comment => {}
                _ => {
                    kinds.push(kind);
                    if kind == TokenKind::Atom {
                        names.push(file[span.start()..span.end()].to_string());
                    }
                }
            }
            continue;
        }
        match kind {
            TokenKind::Newline if depth == 0 => line_start = true,
            TokenKind::Whitespace | TokenKind::Comment | TokenKind::Newline => {}
            TokenKind::LeftSquareBracket if line_start && depth == 0 => {
                line_start = false;
                header = Some((text.len() + (span.start() - copied), vec![kind], Vec::new()));
            }
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => {
                line_start = false;
                depth += 1;
            }
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                line_start = false;
                depth = depth.saturating_sub(1);
            }
            _ => line_start = false,
        }
    }
    if let Some((start, kinds, names)) = header.take() {
        let found = simple_header(&kinds, &names);
        simple &= found.is_some();
        cuts.push((start, found));
    }
    text.push_str(&file[copied..]);
    let pieces = if simple {
        let ends: Vec<usize> = cuts
            .iter()
            .skip(1)
            .map(|(start, _)| *start)
            .chain([text.len()])
            .collect();
        cuts.into_iter()
            .zip(ends)
            .map(|((start, header), end)| Piece {
                range: start..end,
                header,
            })
            .collect()
    } else {
        vec![Piece {
            range: 0..text.len(),
            header: None,
        }]
    };
    Prepared {
        text,
        stretches,
        pieces,
    }
}

/// `[name]` or `[[name]]` with a bare name; `None` for any other header.
fn simple_header(kinds: &[TokenKind], names: &[String]) -> Option<Header> {
    use TokenKind::{Atom, LeftSquareBracket as Open, RightSquareBracket as Close};
    let array = match kinds {
        [Open, Atom, Close] => false,
        [Open, Open, Atom, Close, Close] => true,
        _ => return None,
    };
    let name = names.first()?;
    let bare = name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    bare.then(|| Header {
        name: name.clone(),
        array,
    })
}

/// Reads TOML into a tree with every key's and value's position.
///
/// Each `[[subscriptions]]` table is checked as it is read, into `checked`,
/// and stands in the tree as [`Node::Checked`].
///
/// `file` may be the file with its roles' members set aside (`scan`):
/// `origin` maps its offsets to the file's (empty: they are the file's).
pub(super) fn read(
    file: &str,
    origin: &[(usize, usize)],
    checked: &mut Checked,
) -> Result<Node, Vec<Problem>> {
    let prepared = prepare(file);
    // The entries the headers announce: their lists are allocated once.
    let subscriptions = prepared
        .pieces
        .iter()
        .filter(|piece| {
            piece
                .header
                .as_ref()
                .is_some_and(|header| header.array && header.name == "subscriptions")
        })
        .count();
    checked.expect(subscriptions);
    let mut sweep = Sweep::with_origin(file, origin);
    let mut root: Vec<(String, Option<Pos>, Node, Option<Pos>)> = Vec::new();
    // Which root keys hold an array of tables made by `[[name]]`.
    let mut arrays: HashMap<String, usize> = HashMap::new();
    for piece in &prepared.pieces {
        let text = &prepared.text[piece.range.clone()];
        let document = toml_edit::Document::parse(text).map_err(|error| {
            let at = error.span().map(|span| {
                Sweep::with_origin(file, origin).to(prepared.original(piece.range.start + span.start))
            });
            vec![Problem {
                at,
                message: format!("not TOML: {}", error.message().trim()),
            }]
        })?;
        let mut offsets = Vec::new();
        gather_table(document.as_table(), &mut offsets);
        let base = piece.range.start;
        let positions = Positions::of(&mut sweep, offsets, |offset| prepared.original(base + offset));
        let Node::Table(entries) = table(document.as_table(), &positions) else {
            continue;
        };
        for (key, key_at, node, at) in entries {
            let twice = |what: &str| {
                vec![Problem {
                    at: key_at,
                    message: format!("not TOML: {what} `{key}` is defined twice"),
                }]
            };
            match (&piece.header, node) {
                (Some(Header { array: true, name }), Node::List(items)) if *name == key => {
                    let items = if key == "subscriptions" {
                        // Where the entries check an item of no position of its own.
                        let list_at = arrays.get(&key).map_or(at, |&index| root[index].3);
                        let mut checked_items = Vec::with_capacity(match arrays.contains_key(&key) {
                            true => items.len(),
                            false => subscriptions.max(items.len()),
                        });
                        checked_items.extend(
                            items
                                .into_iter()
                                .map(|(item, item_at)| (checked.check(&item, item_at.or(list_at)), item_at)),
                        );
                        checked_items
                    } else if key == "roles" {
                        // Each role checked as it is read, as the subscriptions are.
                        let list_at = arrays.get(&key).map_or(at, |&index| root[index].3);
                        items
                            .into_iter()
                            .map(|(item, item_at)| (checked.check_role(&item, item_at.or(list_at)), item_at))
                            .collect()
                    } else {
                        items
                    };
                    if let Some(&index) = arrays.get(&key) {
                        if let Node::List(held) = &mut root[index].2 {
                            held.extend(items);
                        }
                    } else if root.iter().any(|(held, ..)| *held == key) {
                        return Err(twice("the key"));
                    } else {
                        arrays.insert(key.clone(), root.len());
                        root.push((key, key_at, Node::List(items), at));
                    }
                }
                (header, node) => {
                    if root.iter().any(|(held, ..)| *held == key) {
                        return Err(twice(if header.is_some() { "the table" } else { "the key" }));
                    }
                    root.push((key, key_at, node, at));
                }
            }
        }
    }
    Ok(Node::Table(root))
}

fn start(span: Option<Range<usize>>) -> Option<usize> {
    span.map(|span| span.start)
}

fn gather_value(value: &toml_edit::Value, offsets: &mut Vec<usize>) {
    match value {
        toml_edit::Value::Array(items) => {
            for item in items {
                offsets.extend(start(item.span()));
                gather_value(item, offsets);
            }
        }
        toml_edit::Value::InlineTable(table) => {
            for (key, _) in table.iter() {
                if let Some((key, item)) = table.get_key_value(key) {
                    offsets.extend(start(key.span()));
                    offsets.extend(start(item.span()));
                    gather_item(item, offsets);
                }
            }
        }
        _ => {}
    }
}

fn gather_item(item: &toml_edit::Item, offsets: &mut Vec<usize>) {
    match item {
        toml_edit::Item::Value(value) => gather_value(value, offsets),
        toml_edit::Item::Table(table) => gather_table(table, offsets),
        toml_edit::Item::ArrayOfTables(tables) => {
            for table in tables {
                offsets.extend(start(table.span()));
                gather_table(table, offsets);
            }
        }
        toml_edit::Item::None => {}
    }
}

fn gather_table(table: &toml_edit::Table, offsets: &mut Vec<usize>) {
    for (key, _) in table.iter() {
        if let Some((key, item)) = table.get_key_value(key) {
            offsets.extend(start(key.span()));
            offsets.extend(start(item.span()));
            gather_item(item, offsets);
        }
    }
}

fn at(positions: &Positions, span: Option<Range<usize>>) -> Option<Pos> {
    start(span).and_then(|offset| positions.get(offset))
}

fn value(value: &toml_edit::Value, positions: &Positions) -> Node {
    use toml_edit::Value as V;
    match value {
        V::String(text) => Node::Text(text.value().clone()),
        V::Integer(number) => Node::Integer(*number.value()),
        V::Boolean(flag) => Node::Bool(*flag.value()),
        V::Float(_) => Node::Other("a float"),
        V::Datetime(_) => Node::Other("a TOML date (write it as a string)"),
        V::Array(items) => Node::List(
            items
                .iter()
                .map(|item| (self::value(item, positions), at(positions, item.span())))
                .collect(),
        ),
        V::InlineTable(table) => Node::Table(
            table
                .iter()
                .filter_map(|(key, _)| table.get_key_value(key))
                .map(|(key, held)| {
                    (
                        key.get().to_string(),
                        at(positions, key.span()),
                        item(held, positions),
                        at(positions, held.span()),
                    )
                })
                .collect(),
        ),
    }
}

fn item(item: &toml_edit::Item, positions: &Positions) -> Node {
    match item {
        toml_edit::Item::Value(held) => value(held, positions),
        toml_edit::Item::Table(held) => table(held, positions),
        toml_edit::Item::ArrayOfTables(tables) => Node::List(
            tables
                .iter()
                .map(|held| (table(held, positions), at(positions, held.span())))
                .collect(),
        ),
        toml_edit::Item::None => Node::Other("nothing"),
    }
}

fn table(table: &toml_edit::Table, positions: &Positions) -> Node {
    Node::Table(
        table
            .iter()
            .filter_map(|(key, _)| table.get_key_value(key))
            .map(|(key, held)| {
                (
                    key.get().to_string(),
                    at(positions, key.span()),
                    item(held, positions),
                    at(positions, held.span()),
                )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(node: &Node) -> &[(String, Option<Pos>, Node, Option<Pos>)] {
        match node {
            Node::Table(entries) => entries,
            other => panic!("not a table: {other:?}"),
        }
    }

    #[test]
    fn blank_runs_shrink_and_headers_cut_pieces() {
        let file = "a = 1\n\n\n# note\n\n[[access]]\nname = \"x\"\n\n\n\n[orgdeck]\ns = \"\"\"\n\n\n[[not a header]]\n\"\"\"\n[[access]]\nname = \"y\"\nm = [\n[1],\n]\n";
        let prepared = prepare(file);
        assert_eq!(prepared.pieces.len(), 4);
        assert!(
            prepared.text.starts_with("a = 1\n[[access]]"),
            "{}",
            prepared.text
        );
        // The string's blank lines are kept: they are its text.
        assert!(
            prepared.text.contains("\"\"\"\n\n\n[[not a header]]"),
            "{}",
            prepared.text
        );
        let root = read(file, &[], &mut Checked::default()).unwrap();
        let root = entries(&root);
        let keys: Vec<&str> = root.iter().map(|(key, ..)| key.as_str()).collect();
        // (Not `[[roles]]`: those are checked as they are read, their tree not held.)
        assert_eq!(keys, ["a", "access", "orgdeck"]);
        let Node::List(roles) = &root[1].2 else {
            panic!("access");
        };
        assert_eq!(roles.len(), 2);
        // Each entry stands at its header, as the file has it.
        assert_eq!(
            roles[0].1.map(|at| (at.line, at.column, at.offset)),
            Some((6, 1, 16))
        );
        assert_eq!(&file[roles[1].1.unwrap().offset..][..10], "[[access]]");
        let name_at = entries(&roles[1].0)[0].3.unwrap();
        assert_eq!((name_at.line, name_at.column), (18, 8));
    }

    #[test]
    fn twice_is_refused_and_odd_headers_read_whole() {
        let error = read(
            "[orgdeck]\na = 1\n[orgdeck]\nb = 2\n",
            &[],
            &mut Checked::default(),
        )
        .unwrap_err();
        assert!(error[0].message.contains("defined twice"), "{error:?}");
        assert_eq!(error[0].at.map(|at| at.line), Some(3));
        assert!(
            read(
                "roles = []\n[[roles]]\nname = \"x\"\n",
                &[],
                &mut Checked::default()
            )
            .is_err()
        );
        let whole = read("[a.b]\nc = 1\n\n\n\n[a]\nd = 2\n", &[], &mut Checked::default()).unwrap();
        assert_eq!(entries(&whole).len(), 1);
        let error = read("a = 1\n\n\n\nb = \n", &[], &mut Checked::default()).unwrap_err();
        assert_eq!(error[0].at.map(|at| at.line), Some(5), "{error:?}");
    }
}
