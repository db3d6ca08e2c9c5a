package api

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"example.com/userperf/common/user"
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

// stackFiles is a stage that records, at each ListByRole, the files of
// common/api on the stack, outermost first, its tests aside.
type stackFiles struct {
	Stage
	files []string
}

func (s *stackFiles) ListByRole(role string) []byte {
	pcs := make([]uintptr, 64)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(2, pcs)])
	s.files = s.files[:0]
	for f, more := frames.Next(); more; f, more = frames.Next() {
		if _, file, ok := strings.Cut(filepath.ToSlash(f.File), "/common/api/"); ok && !strings.HasSuffix(file, "_test.go") {
			s.files = append([]string{file}, s.files...)
		}
	}
	s.files = slices.Compact(s.files) // one entry per stay in a file
	return s.Stage.ListByRole(role)
}

// TestGETReachesTheStageThroughTheGuardThenTheHandler looks at the stack
// when a GET asks the stage for its list: the guard's file, then
// routes.go, each once, as steps 1 and 3 of the path say, and nothing
// else of common/api (the role's check has returned).
func TestGETReachesTheStageThroughTheGuardThenTheHandler(t *testing.T) {
	users := user.MustGenerate(user.MinCount, user.DefaultSeed)
	stage := &stackFiles{Stage: newMapStage(users)}
	if w := serve(NewHandler(stage, users), httptest.NewRequest("GET", "/users?role=admin", nil)); w.Code != http.StatusOK {
		t.Fatalf("GET /users?role=admin: status %d", w.Code)
	}
	if want := []string{"guard/guard.go", "routes.go"}; !slices.Equal(stage.files, want) {
		t.Errorf("the files of common/api on the stack at ListByRole, outermost first: %q, want %q", stage.files, want)
	}
}
