// the project's code
