module ohhooks-bench

go 1.22

require github.com/oh-hooks/oh-hooks/bindings/go v0.0.0

replace github.com/oh-hooks/oh-hooks/bindings/go => ../../bindings/go
