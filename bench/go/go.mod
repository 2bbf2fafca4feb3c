module ohhooks-bench

go 1.22

require github.com/oh-hooks/ohhooks v0.0.0

replace github.com/oh-hooks/ohhooks => ../../bindings/go
