//! The `botmesh-mcp` binary (skeleton).
mod check;

fn main() -> std::process::ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    if args.first().is_some_and(|a| a == "check") {
        args.remove(0);
        return check::run(args);
    }
    let _ = botmesh_mcp::create_mcp_server(botmesh_mcp::ServerOptions::default());
    std::process::ExitCode::SUCCESS
}
