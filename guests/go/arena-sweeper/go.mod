module karmem.org/guests/arena-sweeper

go 1.24

require karmem.org/go/karmem v0.0.0

replace karmem.org/go/karmem => ../../../go
