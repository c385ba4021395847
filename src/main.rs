//! The storebench binary: everything happens in [`storebench::app::main_with`].

fn main() {
    let code = storebench::app::main_with(std::env::args_os().collect());
    std::process::exit(code);
}
