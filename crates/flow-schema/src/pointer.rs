//! RFC 6901 JSON Pointer reference tokens: the one escaping (`~` as `~0`, `/` as `~1`) every
//! crate of the workspace writes pointers with, and its inverse.

use std::borrow::Cow;

/// Appends `/` and `token`, escaped.
pub fn push_token(path: &mut String, token: &str) {
    path.push('/');
    for c in token.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

/// `token` escaped (borrowed when it holds neither `~` nor `/`).
pub fn escape_token(token: &str) -> Cow<'_, str> {
    if token.contains(['~', '/']) {
        Cow::Owned(token.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(token)
    }
}

/// An escaped token read back (`~1` is `/`, then `~0` is `~`).
pub fn unescape_token(token: &str) -> Cow<'_, str> {
    if token.contains('~') {
        Cow::Owned(token.replace("~1", "/").replace("~0", "~"))
    } else {
        Cow::Borrowed(token)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_escape_and_read_back() {
        for (token, escaped) in [
            ("a", "a"),
            ("a/b", "a~1b"),
            ("~1", "~01"),
            ("", ""),
            ("/~", "~1~0"),
        ] {
            assert_eq!(escape_token(token), escaped);
            assert_eq!(unescape_token(escaped), token);
            let mut path = String::from("/x");
            push_token(&mut path, token);
            assert_eq!(path, format!("/x/{escaped}"));
        }
        // serde_json reads what we write.
        let value = serde_json::json!({ "a/b": { "~": 1 } });
        let mut path = String::new();
        push_token(&mut path, "a/b");
        push_token(&mut path, "~");
        assert_eq!(value.pointer(&path), Some(&serde_json::json!(1)));
    }
}
