package harness

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// definedFlag finds the flags a command defines on its flag set: the name is
// the first string argument of c.Flags.Bool and the like, the second of
// c.Flags.BoolVar and the like.
var definedFlag = regexp.MustCompile(`Flags\.(?:[A-Z][a-z0-9]*\(|[A-Z][a-z0-9]*Var\([^,]+, )"([a-z][a-z0-9-]*)"`)

// TestEveryCommandsManualNamesItsFlags checks that the package comment of
// every command under scripts/, which go doc ./scripts/NAME shows as its
// manual, names each flag that the command defines, so that a flag added to
// --help without a word in the manual fails here.
func TestEveryCommandsManualNamesItsFlags(t *testing.T) {
	mains, err := filepath.Glob(filepath.Join("..", "..", "*", "main.go"))
	if err != nil || len(mains) == 0 {
		t.Fatalf("no scripts/*/main.go two folders up: %v", err)
	}
	for _, main := range mains {
		dir := filepath.Dir(main)
		f, err := parser.ParseFile(token.NewFileSet(), main, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		manual := f.Doc.Text()
		if !strings.Contains(manual, "Usage:") || !strings.Contains(manual, "go run ./scripts/"+filepath.Base(dir)) {
			t.Errorf("%s: its package comment is not its manual: no Usage: and no go run ./scripts/%s", main, filepath.Base(dir))
		}
		sources, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, source := range sources {
			if strings.HasSuffix(source, "_test.go") {
				continue
			}
			code, err := os.ReadFile(source)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range definedFlag.FindAllStringSubmatch(string(code), -1) {
				if !regexp.MustCompile(`--` + m[1] + `([^a-z0-9-]|$)`).MatchString(manual) {
					t.Errorf("%s defines --%s, which its manual (the package comment of %s) does not name", source, m[1], main)
				}
			}
		}
	}
}
