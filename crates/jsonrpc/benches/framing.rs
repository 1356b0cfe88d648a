//! Framing throughput: a stream of typical MCP requests cut into 64 KiB reads, framed,
//! parsed and answered by a trivial handler. Run with `cargo bench -p botmesh-jsonrpc`.
#![expect(clippy::print_stdout, reason = "a benchmark program reports on stdout")]

use botmesh_jsonrpc::{Frame, LineFramer, Message, Response, process_frame};
use std::time::Instant;

fn main() {
    if std::env::args().any(|arg| arg == "--list") {
        return;
    }
    let mut stream = String::new();
    for id in 0..100_000 {
        stream.push_str(&format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"flow_digest\",\"arguments\":{{\"document\":{{\"version\":2,\"id\":\"pizza\",\"steps\":[{{\"id\":\"hi\",\"kind\":\"message\",\"text\":\"¡Hola, {{{{contact_name}}}}!\"}}]}}}}}}}}\r\n"
        ));
    }
    let bytes = stream.as_bytes();
    let mut rates = Vec::new();
    for _ in 0..7 {
        let start = Instant::now();
        let mut answered = 0usize;
        let mut framer = LineFramer::new(botmesh_jsonrpc::DEFAULT_MAX_MESSAGE_LENGTH);
        let mut handle = |message: Message| match message {
            Message::Request(request) => Some(Response::result(request.id, serde_json::json!({}))),
            Message::Notification(_) => None,
        };
        let mut on_frame = |frame: Frame| {
            if process_frame(frame, usize::MAX, &mut handle).is_some() {
                answered += 1;
            }
        };
        for chunk in bytes.chunks(64 * 1024) {
            framer.push(chunk, &mut on_frame);
        }
        framer.finish(&mut on_frame);
        assert_eq!(answered, 100_000);
        rates.push((
            100_000.0 / start.elapsed().as_secs_f64(),
            bytes.len() as f64 / start.elapsed().as_secs_f64() / 1048576.0,
        ));
    }
    rates.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (messages, mib) = rates[rates.len() / 2];
    println!(
        "framing + parse + answer: {messages:.0} messages/s, {mib:.1} MiB/s (median of 7 runs of 100,000 messages)"
    );
}
