module karmem.org/go/karmem

go 1.23
