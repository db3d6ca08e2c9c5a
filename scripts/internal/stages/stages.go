// Package stages is the one list of what the scripts measure: every stage of the workspace, with
// its folder, in the order of every table, and what each is compared with.
package stages

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Folder is a stage's folder: the module of one implementation of the API (api.Stage is the implementation).
type Folder struct {
	Name string // its folder's name, which names its result files: stage0-linear, or a learner's
	Dir  string // its main package, relative to the root, slash-separated: workshop/solutions/quest6-cache-fixed
}

// Floor is the stage that serves bytes encoded in advance, the yardstick that goes last.
const Floor = "floor"

// List returns every module of the workspace at root with a stage_test.go, in the order of Compare.
// The workspace file is $GOWORK if set (a learner's local.work, see scripts/new-stage), else root/go.work.
func List(root string) ([]Folder, error) {
	file := os.Getenv("GOWORK")
	if file == "" || file == "off" {
		file = filepath.Join(root, "go.work")
	}
	out, err := exec.Command("go", "work", "edit", "-json", file).CombinedOutput()
	var work struct{ Use []struct{ DiskPath string } }
	if err == nil {
		err = json.Unmarshal(out, &work)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w: %s", file, err, out)
	}
	var list []Folder
	for _, u := range work.Use {
		dir := path.Clean(filepath.ToSlash(u.DiskPath)) // relative to root
		if _, err := os.Stat(filepath.Join(root, dir, "stage_test.go")); err != nil {
			continue
		}
		if slices.ContainsFunc(list, func(s Folder) bool { return s.Name == path.Base(dir) }) {
			return nil, fmt.Errorf("the workspace has two stages named %s; rename one folder", path.Base(dir))
		}
		list = append(list, Folder{Name: path.Base(dir), Dir: dir})
	}
	slices.SortStableFunc(list, func(a, b Folder) int { return Compare(a.Name, b.Name) })
	return list, nil
}

// Shown returns the stages that the default runs, tables and charts show: all but the workshop's.
func Shown(root string) ([]Folder, error) {
	list, err := List(root)
	return slices.DeleteFunc(list, func(s Folder) bool { return strings.HasPrefix(s.Dir, "workshop/") }), err
}

// Find returns the stages with names, in that order; an unknown name is an error.
func Find(root string, names ...string) (found []Folder, err error) {
	list, err := List(root)
	var unknown []string
	for _, name := range names {
		if i := slices.IndexFunc(list, func(s Folder) bool { return s.Name == name }); i >= 0 {
			found = append(found, list[i])
		} else {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 && err == nil {
		err = fmt.Errorf("no stage %s (the stages: %s)", strings.Join(unknown, ", "), strings.Join(Names(list), ", "))
	}
	return found, err
}

// Names are the names of list.
func Names(list []Folder) (names []string) {
	for _, s := range list {
		names = append(names, s.Name)
	}
	return names
}

// Compare orders stage names: the steps by number (stage2 before stage10), then others by name, the floor last.
func Compare(a, b string) int {
	rank := func(name string) int {
		switch {
		case name == Floor:
			return 2
		case IsStep(name):
			return 0
		}
		return 1
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(number(a), number(b)), cmp.Compare(a, b))
}

// IsStep reports whether name is one of the project's steps, stageN-name, which build on one another.
func IsStep(name string) bool { return number(name) >= 0 }

var step = regexp.MustCompile(`^stage([0-9]+)-`)

// number is N in stageN-name, or -1 for any other name.
func number(name string) int {
	if m := step.FindStringSubmatch(name); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return -1
}

// Solution returns the stage of list that solves the exercise starting at name, or "": the one in
// workshop/solutions/ whose origin is name, else, after a step, the next step by number.
func Solution(root string, list []Folder, name string) string {
	next := ""
	for _, s := range list {
		if strings.HasPrefix(s.Dir, "workshop/solutions/") && path.Base(Origin(root, s.Dir)) == name {
			return s.Name
		} else if next == "" && IsStep(name) && IsStep(s.Name) && number(s.Name) > number(name) {
			next = s.Name
		}
	}
	return next
}

// Against returns the stages that scripts/check compares the stage in folder dir with, or "": base,
// the nearest stage on its chain of origins (from, else its Origin, then that one's...), and solution,
// the first Solution on that chain. A folder with no origin is compared with stage0-linear alone.
func Against(root, dir, from string) (base, solution string, err error) {
	list, err := List(root)
	origin, exercise := cmp.Or(from, Origin(root, dir)), true
	if origin == "" {
		origin, exercise = "stage0-linear", false
	}
	if i := slices.IndexFunc(list, func(s Folder) bool { return s.Name == origin }); i >= 0 {
		origin = list[i].Dir
	}
	// A chain is a few folders long; the bound stops a loop of origin lines.
	for walk, n := path.Clean(origin), 0; walk != "" && n < 10; walk, n = Origin(root, walk), n+1 {
		if base == "" && slices.ContainsFunc(list, func(s Folder) bool { return s.Dir == walk }) {
			base = path.Base(walk)
		}
		if exercise {
			solution = cmp.Or(solution, Solution(root, list, path.Base(walk)))
		}
	}
	if name := path.Base(dir); base == name {
		base = ""
	} else if solution == name {
		solution = ""
	}
	return base, solution, err
}

var originLine = regexp.MustCompile(`(?m)^// origin: (\S+)`)

// Origin returns the folder that the "// origin:" line of dir/go.mod names (scripts/new-stage writes it), or "".
func Origin(root, dir string) string {
	mod, _ := os.ReadFile(filepath.Join(root, dir, "go.mod"))
	if m := originLine.FindSubmatch(mod); m != nil {
		return path.Clean(string(m[1]))
	}
	return ""
}

// Mine returns the folders at root that scripts/new-stage made, with an origin line.
func Mine(root string) (mine []string) {
	mods, _ := filepath.Glob(filepath.Join(root, "*", "go.mod")) // a pattern without errors
	for _, mod := range mods {
		if dir := filepath.Base(filepath.Dir(mod)); Origin(root, dir) != "" {
			mine = append(mine, dir)
		}
	}
	return mine
}
