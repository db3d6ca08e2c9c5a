// Package stages finds what the scripts measure: every stage of the
// workspace and the floor, each with its folder, in the order of every
// table and chart. It is the one place that maps a stage's name to its
// folder; the shell scripts ask it through scripts/cmd/stages.
package stages

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Stage is one implementation of the API that the scripts measure.
type Stage struct {
	// Name is the stage's folder name (stage0-linear, or whatever a
	// learner called theirs); result files are named after it.
	Name string
	// Dir is the package with its benchmarks, relative to the repository
	// root and slash-separated: stage0-linear, common/floor.
	Dir string
	// Server is the main package of its server, in the same form.
	Server string
}

// Floor is the name of the yardstick beside every table: the same HTTP
// path serving bytes encoded in advance. It is a stage like the others, in
// its own folder, but not a step, so every table puts it last.
const Floor = "floor"

// marker is the file that makes a workspace module a stage: the one that
// runs the shared suites and benchmarks against it.
const marker = "stage_test.go"

// List returns every stage of the workspace at root, the floor last, in
// the order of Compare. A stage is a module listed in root/go.work whose
// folder has a stage_test.go, whatever its name.
func List(root string) ([]Stage, error) {
	dirs, err := workspaceModules(root)
	if err != nil {
		return nil, err
	}
	var list []Stage
	for _, dir := range dirs {
		if _, err := os.Stat(filepath.Join(root, dir, marker)); err != nil {
			continue
		}
		s := Stage{Name: path.Base(dir), Dir: dir, Server: dir}
		if i := slices.IndexFunc(list, func(o Stage) bool { return o.Name == s.Name }); i >= 0 {
			return nil, fmt.Errorf("go.work: two stages are named %s; rename one folder", s.Name)
		}
		list = append(list, s)
	}
	slices.SortStableFunc(list, func(a, b Stage) int { return Compare(a.Name, b.Name) })
	return list, nil
}

// workshopDir holds the workshop's starting points and reference
// solutions: stages that a learner names to check or measure, but that no
// default run, table or chart includes.
const workshopDir = "workshop/"

// Shown returns the stages of List that the default runs, the tables and
// the charts show: all of them but the workshop's.
func Shown(root string) ([]Stage, error) {
	list, err := List(root)
	return slices.DeleteFunc(list, func(s Stage) bool { return strings.HasPrefix(s.Dir, workshopDir) }), err
}

// Find returns the stages with names, in the order given. An unknown name
// is an error that lists the stages there are.
func Find(root string, names ...string) ([]Stage, error) {
	list, err := List(root)
	if err != nil {
		return nil, err
	}
	var found []Stage
	var unknown []string
	for _, name := range names {
		i := slices.IndexFunc(list, func(s Stage) bool { return s.Name == name })
		if i < 0 {
			unknown = append(unknown, name)
			continue
		}
		found = append(found, list[i])
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("no stage %s (the stages: %s)", strings.Join(unknown, ", "), strings.Join(Names(list), ", "))
	}
	return found, nil
}

// Names are the names of list.
func Names(list []Stage) []string {
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	return names
}

// Compare orders stage names: the project's steps first, by number and
// then name (stage2 before stage10), then any other stage by name (a
// learner's, which may be called anything), and the floor last.
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

// IsStep reports whether name is one of the project's steps, stageN-name,
// which build on one another; a learner's stage or the floor is not.
func IsStep(name string) bool { return number(name) >= 0 }

// number is N in stageN-name, or -1 for any other name.
func number(name string) int {
	rest, ok := strings.CutPrefix(name, "stage")
	digits := rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))]
	n, err := strconv.Atoi(digits)
	if !ok || err != nil || len(digits) == len(rest) || rest[len(digits)] != '-' {
		return -1
	}
	return n
}

// workspaceModules returns the folders that root/go.work uses, relative to
// root and slash-separated, as the go command itself reads the file.
func workspaceModules(root string) ([]string, error) {
	out, err := exec.Command("go", "work", "edit", "-json", filepath.Join(root, "go.work")).Output()
	if err != nil {
		if e, ok := err.(*exec.ExitError); ok {
			err = fmt.Errorf("%v: %s", err, e.Stderr)
		}
		return nil, fmt.Errorf("reading %s: %w", filepath.Join(root, "go.work"), err)
	}
	var work struct{ Use []struct{ DiskPath string } }
	if err := json.Unmarshal(out, &work); err != nil {
		return nil, fmt.Errorf("go work edit -json: %w", err)
	}
	var dirs []string
	for _, u := range work.Use {
		dirs = append(dirs, path.Clean(filepath.ToSlash(u.DiskPath)))
	}
	return dirs, nil
}
