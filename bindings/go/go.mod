module github.com/oh-hooks/oh-hooks/bindings/go

go 1.22
