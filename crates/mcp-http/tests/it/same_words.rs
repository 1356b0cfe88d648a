//! The same bad input gets the same error object on stdio and over HTTP: a body that is no
//! message, too long, or of a bad shape is answered with the `jsonrpc` crate's error, word for
//! word as stdio answers a line of the same bytes (the limit's unit aside: stdio counts a
//! line's characters, HTTP a body's bytes).
use crate::*;
use botmesh_mcp::{StreamOptions, serve_stream};

/// The longest message of both transports in this test.
const LIMIT: usize = 64;

/// The one answer stdio gives `bytes` as a line.
fn stdio_answer(bytes: &[u8]) -> Value {
    let server = create_mcp_server(ServerOptions::default().with_max_message_length(LIMIT))
        .expect("a server");
    let mut line = bytes.to_vec();
    line.push(b'\n');
    let mut answers = Vec::new();
    let write = |answer: &str| {
        answers.push(answer.to_owned());
        Ok(())
    };
    serve_stream(&line[..], StreamOptions::new(server, write)).expect("served");
    assert_eq!(answers.len(), 1, "{answers:?}");
    serde_json::from_str(&answers[0]).expect("a JSON answer")
}

/// What the HTTP server answers a POST of `bytes`: its status and body.
fn http_answer(server: &Server, bytes: &[u8]) -> (u16, Value) {
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        server.host(),
        bytes.len()
    );
    let mut stream = connect(server.addr);
    stream.write_all(head.as_bytes()).unwrap();
    stream.write_all(bytes).unwrap();
    let reply = parse_reply(&read_all(&mut stream));
    (reply.status, reply.json())
}

#[test]
fn stdio_and_http_word_the_same_bad_input_the_same_way() {
    // Stateless: a well-formed body of a bad shape reaches the server without a session.
    let server = Server::start(
        HttpOptions::default()
            .with_stateless(true)
            .with_max_body_bytes(Some(LIMIT)),
    );
    let long = format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{}\"}}",
        "x".repeat(80)
    );
    let cases: [(&str, &[u8], u16); 9] = [
        ("not JSON", b"{\"jsonrpc\":", 400),
        ("a trailing comma", b"{\"jsonrpc\":\"2.0\",}", 400),
        ("not UTF-8", b"{\"a\":\"\xff\"}", 400),
        ("a number", b"42", 400),
        ("a string", b"\"ping\"", 400),
        // A message the server reads: its answer is served as any other (200).
        ("no method", b"{\"jsonrpc\":\"2.0\",\"id\":3}", 200),
        (
            "a wrong version",
            b"{\"jsonrpc\":\"1.0\",\"id\":4,\"method\":\"ping\"}",
            200,
        ),
        (
            "params not an object",
            b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":1}",
            200,
        ),
        ("too long", long.as_bytes(), 413),
    ];
    for (what, bytes, status) in cases {
        let stdio = stdio_answer(bytes);
        let (code, http) = http_answer(&server, bytes);
        assert_eq!(code, status, "{what}: {http}");
        let stdio_error = stdio["error"].to_string().replace(" characters", " bytes");
        assert_eq!(http["error"].to_string(), stdio_error, "{what}");
        assert_eq!(http["id"], stdio["id"], "{what}");
        assert!(
            stdio["error"]["message"]
                .as_str()
                .is_some_and(|m| m.len() > 20),
            "{what}: {stdio}"
        );
    }
}
