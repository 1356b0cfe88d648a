//! Embedding botmesh-mcp in another Rust program: serve it over an in-process pipe and talk to
//! it as a client would. Run with `cargo run -p botmesh-mcp --example embed`.

use botmesh_mcp::{ServerOptions, StreamOptions, create_mcp_server, serve_stream};
use std::io::{BufRead, BufReader, Write};

/// Starts a server on one end of a pipe, sends three requests, and returns the answer lines.
pub(crate) fn run() -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let (server_input, mut client_output) = std::io::pipe()?;
    let (client_input, mut server_output) = std::io::pipe()?;
    let server = create_mcp_server(ServerOptions::default())?;
    let serving = std::thread::spawn(move || {
        serve_stream(
            server_input,
            StreamOptions::new(server, move |line: &str| {
                server_output.write_all(line.as_bytes())?;
                server_output.write_all(b"\n")
            }),
        )
    });
    let requests = [
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"embed","version":"1"}}}"#,
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"flow_digest","arguments":{"document":{"version":2,"id":"demo","steps":[]}}}}"#,
    ];
    for request in requests {
        writeln!(client_output, "{request}")?;
    }
    drop(client_output); // End of input: the server finishes and closes its output.
    let answers = BufReader::new(client_input)
        .lines()
        .collect::<Result<Vec<_>, _>>()?;
    serving.join().map_err(|_| "the server thread panicked")??;
    Ok(answers)
}

#[expect(clippy::print_stdout, reason = "an example program shows what it got")]
fn main() -> Result<(), Box<dyn std::error::Error>> {
    for line in run()? {
        println!("{line}");
    }
    Ok(())
}
