fn main() {
    let f = std::env::args().nth(1).unwrap();
    let src = std::fs::read_to_string(&f).unwrap();
    match karmem_schema::format(&f, &src) {
        Ok(s) => print!("{s}"),
        Err(d) => print!("{}", d.render(false)),
    }
}
