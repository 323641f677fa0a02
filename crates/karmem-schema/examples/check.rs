fn main() {
    for f in std::env::args().skip(1) {
        let src = std::fs::read_to_string(&f).unwrap();
        match karmem_schema::compile(&f, &src) {
            Ok(c) => {
                println!("{f}: ok {} structs", c.schema.structs.len());
                print!("{}", c.warnings.render(false));
            }
            Err(d) => print!("{}", d.render(false)),
        }
    }
}
