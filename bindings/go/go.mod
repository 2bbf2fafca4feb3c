module github.com/oh-hooks/ohhooks

go 1.22
