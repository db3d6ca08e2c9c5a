module example.com/bad

go 1.26.0
