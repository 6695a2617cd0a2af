//! The scanner: lists set aside, every other place kept, unusual lists
//! and odd files left to the reader.

use super::*;

fn scan_of(text: &str) -> (Scanned, Vec<Named>) {
    let scanned = scan(|| Ok(std::io::Cursor::new(text.as_bytes()))).unwrap();
    let Scanned {
        text,
        origin,
        members,
        diverted,
        roles,
        size,
        digest,
    } = scanned;
    let members = members.finish().unwrap();
    let mut named: Vec<Named> = members.all().unwrap().collect::<Result<_, _>>().unwrap();
    named.sort_by_key(|named| (named.role, named.place));
    (
        Scanned {
            text,
            origin,
            members: Gathering::default(),
            diverted,
            roles,
            size,
            digest,
        },
        named,
    )
}

fn shown(named: &[Named]) -> Vec<(usize, String, usize, usize)> {
    named
        .iter()
        .map(|named| (named.role, named.written.clone(), named.line, named.column))
        .collect()
}

#[test]
fn members_are_set_aside_and_every_other_place_kept() {
    let file = "[orgdeck]\nproject = 1\n\n[[roles]]\nname = \"A\"\nmembers = [\n  \"a@x.io\", # one\n  'b\\@x.io',\n  \"c\\u00E9@x.io\",\n  \"\"\"d@x.io\"\"\",\n  \"q]#@x.io\"\n  ] # end\ndefault = true\n[[roles]]\nname = \"B\"\nmembers = [\"é@x.io\", \"f@x.io\"]\n";
    let (scanned, named) = scan_of(file);
    assert_eq!(
        shown(&named),
        [
            (0, "a@x.io".into(), 7, 3),
            (0, "b\\@x.io".into(), 8, 3),
            (0, "cé@x.io".into(), 9, 3),
            (0, "d@x.io".into(), 10, 3),
            (0, "q]#@x.io".into(), 11, 3),
            (1, "é@x.io".into(), 16, 12),
            (1, "f@x.io".into(), 16, 22),
        ]
    );
    assert_eq!(scanned.diverted, BTreeSet::from([0, 1]));
    // Every line kept, `]` at its column; the rest as written.
    let lines: Vec<&str> = scanned.text.lines().collect();
    assert_eq!(lines.len(), file.lines().count());
    assert_eq!(lines[5], "members = [");
    assert_eq!(lines[11], "  ] # end");
    assert_eq!(lines[12], "default = true");
    assert_eq!(lines[15], format!("members = [{}]", " ".repeat(18)));
    assert_eq!(
        lines[15].chars().count(),
        file.lines().nth(15).unwrap().chars().count()
    );
    // Offsets map back to the file's.
    let default = scanned.text.find("default").unwrap();
    let stretch = scanned.origin.partition_point(|(start, _)| *start <= default) - 1;
    let (start, from) = scanned.origin[stretch];
    assert_eq!(&file[from + default - start..][..7], "default");
    assert_eq!(scanned.size, file.len() as u64);
}

#[test]
fn an_unusual_list_is_left_as_written() {
    let file = "[[roles]]\nname = \"A\"\nmembers = [\n  \"a@x.io\",\n  2,\n]\n[[roles]]\nname = \"B\"\nmembers = [\"b@x.io\" \"c@x.io\"]\n[[roles]]\nname = \"C\"\nmembers = [{a = 1}, \"\\q\"]\n[[roles]]\nname = \"D\"\nmembers = [\"d@x.io\"]\n";
    let (scanned, named) = scan_of(file);
    assert_eq!(shown(&named), [(3, "d@x.io".into(), 15, 12)]);
    assert_eq!(scanned.diverted, BTreeSet::from([3]));
    assert!(
        scanned
            .text
            .starts_with(&file[..file.find("[[roles]]\nname = \"D\"").unwrap()])
    );
}

#[test]
fn crlf_odd_headers_and_strings_outside_roles() {
    let file =
        "[[roles]]\r\nname = \"A ]\"\r\nmembers = [\r\n  \"a@x.io\",\r\n]\r\nx = '''\r\n[[roles]]\r\n'''\r\n";
    let (scanned, named) = scan_of(file);
    assert_eq!(shown(&named), [(0, "a@x.io".into(), 4, 3)]);
    assert_eq!(
        scanned.text,
        "[[roles]]\r\nname = \"A ]\"\r\nmembers = [\n\n]\r\nx = '''\r\n[[roles]]\r\n'''\r\n"
    );
    // Members outside a role's table, and in a file whose headers are
    // not all bare names or that starts with a byte order mark, stay
    // in the text.
    for file in [
        "[orgdeck]\nmembers = [\"a@x.io\"]\n",
        "[[roles]]\nmembers = [\"a@x.io\"]\n[a.b]\n",
        "\u{feff}[[roles]]\nmembers = [\"a@x.io\"]\n",
    ] {
        let (read, named) = scan_of(file);
        assert!(named.is_empty());
        assert_eq!(read.text, file);
    }
}

#[test]
fn strings_decode_as_toml_does() {
    assert_eq!(decode(b"\"a\\tb\\\"\"").as_deref(), Some("a\tb\""));
    assert_eq!(decode(b"'a\\b'").as_deref(), Some("a\\b"));
    assert_eq!(decode(b"\"\\U0001F600\"").as_deref(), Some("\u{1F600}"));
    assert_eq!(decode(b"\"\"\"\nab\\\n  c\"\"\"").as_deref(), Some("abc"));
    assert_eq!(decode(b"\"\\x\""), None);
    assert_eq!(decode(b"\"a\x01\""), None);
}

/// The line and column (1-based, in characters) of `offset` in `text`.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    (line, column)
}

#[test]
fn a_list_open_at_the_end_is_read_as_written() {
    for file in [
        "[orgdeck]\nproject = 1\n[[roles]]\nname = \"A\"\nmembers = [\n  \"a@x.io\",\n",
        "[orgdeck]\nproject = 1\n[[roles]]\nname = \"A\"\nmembers = [\n  \"a@x.io\",\n  \"\"\"b@x.io\n",
        "[[roles]]\nname = \"A\"\n[[roles]]\nname = \"B\"\nmembers = [ # open\n",
    ] {
        let (scanned, named) = scan_of(file);
        assert_eq!(scanned.text, file);
        assert!(named.iter().all(|named| named.role == 0), "{named:?}");
        // The reader's problem is toml_edit's on the file as written.
        let error = file.parse::<toml_edit::DocumentMut>().unwrap_err();
        let span = error.span().unwrap();
        let problems = super::super::read::parse(file).unwrap_err();
        assert_eq!(problems.len(), 1, "{problems:?}");
        let at = problems[0].at.unwrap();
        assert_eq!((at.line, at.column), line_column(file, span.start), "{file:?}");
        assert_eq!(
            problems[0].message,
            format!("not TOML: {}", error.message().trim())
        );
    }
}

#[test]
fn every_unusual_list_is_found_in_one_read() {
    let mut file = String::new();
    for role in 0..2000 {
        file.push_str(&format!("[[roles]]\nname = \"R{role}\"\nmembers = [1]\n"));
    }
    file.push_str("[[roles]]\nname = \"Z\"\nmembers = [\"z@x.io\", 2]\n");
    file.push_str("[[roles]]\nname = \"Y\"\nmembers = [\"y@x.io\"]\n");
    let mut reads = 0;
    let scanned = scan(|| {
        reads += 1;
        Ok(std::io::Cursor::new(file.as_bytes()))
    })
    .unwrap();
    assert_eq!(reads, 2);
    assert_eq!(scanned.diverted, BTreeSet::from([2001]));
    let named: Vec<Named> = scanned
        .members
        .finish()
        .unwrap()
        .all()
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(shown(&named), [(2001, "y@x.io".into(), 6006, 12)]);
    assert_eq!(
        scanned.text,
        file.replace(
            "members = [\"y@x.io\"]",
            &format!("members = [{}]", " ".repeat(8))
        )
    );
    // A file without one: a single read.
    let mut reads = 0;
    scan(|| {
        reads += 1;
        Ok(std::io::Cursor::new(&b"[[roles]]\nmembers = [\"a@x.io\"]\n"[..]))
    })
    .unwrap();
    assert_eq!(reads, 1);
}

#[test]
fn what_toml_refuses_between_members_is_left_to_the_reader() {
    for file in [
        "[[roles]]\nname = \"A\"\nmembers = [\"a@x.io\",\r \"b@x.io\"]\n",
        "[[roles]]\nname = \"A\"\nmembers = [\"a@x.io\", \"b@x.io\"\r]\n",
        "[[roles]]\nname = \"A\"\nmembers = [ # a\u{1}b\n  \"a@x.io\"]\n",
        "[[roles]]\nname = \"A\"\nmembers = [ # a\u{7f}\r\n  \"a@x.io\"]\n",
        "[[roles]]\nname = \"A\"\nmembers = [ # a\rb\n  \"a@x.io\"]\n",
    ] {
        let (scanned, named) = scan_of(file);
        assert!(named.is_empty(), "{file:?}");
        assert_eq!(scanned.text, file);
        assert!(scanned.diverted.is_empty());
    }
    // A tab in a comment, and CRLF, are TOML.
    let (_, named) = scan_of("[[roles]]\nmembers = [ # a\tb\r\n  \"a@x.io\"]\r\n");
    assert_eq!(shown(&named), [(0, "a@x.io".into(), 3, 3)]);
}
