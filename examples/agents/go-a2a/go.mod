module passk.example/go-a2a

go 1.19
