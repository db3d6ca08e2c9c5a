package profiles

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/google/pprof/profile"
)

var (
	// runtimeCode is the Go runtime, and assembly helpers without a package (memeqbody, behind ==).
	runtimeCode = regexp.MustCompile(`^(runtime|internal/runtime/[^.]+|internal/bytealg)\.|^[^.]+$`)
	// sliceGrowth is append growing a slice, which the chapters follow as the cost of a copy.
	sliceGrowth = regexp.MustCompile(`^runtime\.growslice$`)
	// ownGoroutines are the runtime's own goroutines, which no code here calls.
	ownGoroutines = regexp.MustCompile(`^runtime\.(gcBgMarkWorker|bgsweep|bgscavenge)$`)
	// typeArgs name the compiler's shapes: slices.Clone[go.shape.[]string,go.shape.string].
	typeArgs = regexp.MustCompile(`\[.*\]`)
)

// fold rewrites a profile of the package mainPkg for the tables. Each stage's
// test binary names its functions after its package; as main.findByRole, not
// example.com/userperf/stage0-linear.findByRole, they line up across stages
// for pprof's -diff_base. The runtime's work for the code (allocating, ==,
// being preempted) counts at the function that called it (Prune), but for
// the growth of a slice, and each of the runtime's own goroutines counts as
// one function, whatever it runs (PruneFrom).
func fold(p *profile.Profile, mainPkg string) {
	for _, fn := range p.Function {
		name, ok := strings.CutPrefix(fn.Name, mainPkg+".")
		if ok {
			name = "main." + name
		}
		fn.Name = typeArgs.ReplaceAllString(strings.TrimPrefix(name, "example.com/userperf/"), "[...]")
	}
	p.PruneFrom(ownGoroutines)
	p.Prune(runtimeCode, sliceGrowth)
}

// foldFile writes the folded form of the profile in from to to.
func foldFile(from, to, mainPkg string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	fold(p, mainPkg)
	var out bytes.Buffer
	if err := p.Write(&out); err != nil {
		return err
	}
	return os.WriteFile(to, out.Bytes(), 0o666)
}
