//! Serving a byte stream: stdio, or any reader with a write callback.

use crate::error::ServeError;
use crate::options::{ServerOptions, StreamOptions};
use crate::server::{Session, create_mcp_server};
use botmesh_jsonrpc::{process_frame, read_frames};
use std::io::{self, Read, Write};
use std::ops::ControlFlow;

/// Reads newline-delimited JSON-RPC messages from `reader` until it ends, handing each answer
/// line to `options.write`. One session per stream.
///
/// When `write` fails (the client closed its end), nothing more is written, but the input is
/// still read to its end, so the process can exit cleanly.
pub fn serve_stream<R, W>(reader: R, options: StreamOptions<W>) -> Result<(), ServeError>
where
    R: Read,
    W: FnMut(&str) -> io::Result<()>,
{
    let StreamOptions { server, mut write } = options;
    let mut session = Session::new();
    let max = server.max_message_length();
    let mut writable = true;
    read_frames(reader, max, |frame| {
        let answer = process_frame(frame, max, &mut |message| {
            server.handle_message(&mut session, message)
        });
        if let (Some(line), true) = (answer, writable)
            && let Err(error) = write(&line)
        {
            tracing::info!("output closed ({error}); answers are no longer written");
            writable = false;
        }
        ControlFlow::Continue(())
    })
    .map_err(ServeError::Read)
}

/// Serves stdin/stdout until stdin ends: one line per answer, flushed per message; nothing
/// else is ever written to stdout.
///
/// # Errors
///
/// [`ServeError::Options`] before reading anything when the options cannot make a server;
/// [`ServeError::Read`] when reading stdin fails.
pub fn run_stdio(options: ServerOptions) -> Result<(), ServeError> {
    let server = create_mcp_server(options)?;
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(16 * 1024, stdout.lock());
    let write = |line: &str| {
        out.write_all(line.as_bytes())?;
        out.write_all(b"\n")?;
        out.flush()
    };
    serve_stream(io::stdin().lock(), StreamOptions::new(server, write))
}
