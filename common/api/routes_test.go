package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunTimePathNamesWhatExists reads the opening comment of routes.go,
// the path of one GET file by file, each file with the functions it runs
// in parentheses: at most six files, none named twice, and every function
// declared in the file that names it.
func TestRunTimePathNamesWhatExists(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "routes.go", nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var path string
	for _, c := range f.Comments {
		if text := c.Text(); strings.HasPrefix(text, "One GET /users?role=R at run time") {
			path = strings.Join(strings.Fields(text), " ")
		}
	}
	steps := regexp.MustCompile(`\d+\. (\S+\.go) \(([^)]*)\)`).FindAllStringSubmatch(path, -1)
	if len(steps) == 0 || len(steps) > 6 {
		t.Fatalf("routes.go's opening comment names %d files on the path of a GET, want 1 to 6:\n%s", len(steps), path)
	}
	named := map[string]bool{}
	for _, step := range steps {
		file := step[1]
		if named[file] {
			t.Errorf("the path of a GET enters %s twice", file)
		}
		named[file] = true
		declared := funcsIn(t, filepath.Join("..", "..", filepath.FromSlash(file)))
		for name := range strings.SplitSeq(step[2], ",") {
			if name = strings.TrimSpace(name); !declared[name] {
				t.Errorf("the path of a GET names %s in %s, which declares no such function", name, file)
			}
		}
	}
}

// funcsIn returns the functions and methods declared in file, named as
// the path names them: Name, or Type.Name.
func funcsIn(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		name := fn.Name.Name
		if fn.Recv != nil {
			recv := fn.Recv.List[0].Type
			if star, ok := recv.(*ast.StarExpr); ok {
				recv = star.X
			}
			if id, ok := recv.(*ast.Ident); ok {
				name = id.Name + "." + name
			}
		}
		declared[name] = true
	}
	return declared
}
