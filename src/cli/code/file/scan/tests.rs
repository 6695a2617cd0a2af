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
