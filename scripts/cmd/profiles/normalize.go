package main

import (
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/google/pprof/profile"
)

// modulePrefix is the import path prefix of this repository's modules; it is
// dropped so that common/bench.ListByRole reads as it does in the tree.
const modulePrefix = "example.com/userperf/"

// closureSuffix matches the numbers the compiler gives closures and the
// wrappers of go and defer statements (f.func1, f.func2.1, f.gowrap1,
// f-range1). The numbers count closures in source order, so one added
// closure would renumber the rest; without the numbers they line up.
var closureSuffix = regexp.MustCompile(`(\.(func|gowrap|deferwrap)|-range)\d+(\.\d+)*`)

var digits = regexp.MustCompile(`\d+`)

// normalizer rewrites function names so that the same function has the same
// name in every stage's profile.
type normalizer struct {
	// mainPkg is the import path of the package under test. A test binary
	// names its functions example.com/userperf/stage0-linear.X, which would
	// not line up with stage1-index.X; both become main.X, as in the source.
	mainPkg string
}

// name is the normalized form of a function name as pprof records it.
func (n normalizer) name(fn string) string {
	fn = stripArgs(fn)
	fn = stripTypeArgs(fn)
	if n.mainPkg != "" && strings.HasPrefix(fn, n.mainPkg+".") {
		fn = "main" + fn[len(n.mainPkg):]
	}
	fn = strings.TrimPrefix(fn, modulePrefix)
	fn = strings.TrimPrefix(fn, "vendor/") // the standard library's vendored packages
	return closureSuffix.ReplaceAllStringFunc(fn, func(m string) string {
		return digits.ReplaceAllString(m, "N")
	})
}

// file is a source file name without this machine's directories: the
// package folder and the file, with the package under test as main/.
func (n normalizer) file(fn, file string) string {
	if file == "" {
		return ""
	}
	dir := path.Base(path.Dir(file))
	if strings.HasPrefix(fn, "main.") {
		dir = "main"
	}
	return dir + "/" + path.Base(file)
}

// stripTypeArgs replaces the type arguments of a generic function, which
// name compiler-internal shapes (slices.Clone[go.shape.[]string,...]), by
// [...], as the Go runtime prints them.
func stripTypeArgs(fn string) string {
	var b strings.Builder
	depth := 0
	for _, c := range fn {
		switch {
		case c == '[':
			if depth == 0 {
				b.WriteString("[...]")
			}
			depth++
		case c == ']' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// stripArgs removes a trailing argument list, as C++ and some assembly
// symbols carry (std::string::string(std::string const&)). A Go method
// receiver, pkg.(*T).M, is not an argument list and stays.
func stripArgs(fn string) string {
	if !strings.HasSuffix(fn, ")") {
		return fn
	}
	depth := 0
	for i := len(fn) - 1; i >= 0; i-- {
		switch fn[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				if i == 0 || fn[i-1] == '.' {
					return fn
				}
				return fn[:i]
			}
		}
	}
	return fn
}

// packageOf is the import path part of a normalized function name: the text
// up to the first dot after the last slash. Assembly helpers such as
// memeqbody have none.
func packageOf(fn string) string {
	slash := strings.LastIndexByte(fn, '/')
	dot := strings.IndexByte(fn[slash+1:], '.')
	if dot < 0 {
		return ""
	}
	return fn[:slash+1+dot]
}

// isRuntime reports whether fn is part of the Go runtime's own machinery.
func isRuntime(fn string) bool {
	pkg := packageOf(fn)
	if pkg == "" { // an assembly helper, or an address nobody could name
		return !strings.HasPrefix(fn, "0x")
	}
	return pkg == "runtime" || pkg == "internal/bytealg" ||
		strings.HasPrefix(pkg, "internal/runtime/") || strings.HasPrefix(pkg, "runtime/internal/")
}

// stackRoots are the runtime frames that start a stack or switch to another
// one. They say how the runtime got somewhere, not what it was doing, so a
// run of runtime frames is never named after them when it can be avoided.
var stackRoots = map[string]bool{
	"runtime.goexit": true, "runtime.mstart": true, "runtime.mstart0": true, "runtime.mstart1": true,
	"runtime.rt0_go": true, "runtime.mcall": true, "runtime.systemstack": true,
	"runtime.morestack": true, "runtime.asmcgocall": true,
}

// foldIntoCaller are runtime entry points whose time belongs to the
// function that called them. The compiler calls the first ones for the
// language's own operators: == and < on strings and arrays, copy, clear and
// the copy in append, so the string comparisons of a linear scan are the
// scan. runtime.asyncPreempt is not called at all: a signal from the garbage
// collector or the scheduler pushes it onto the running function to stop it,
// and its samples (all on its first instruction) are the cost of stopping
// that function.
var foldIntoCaller = map[string]bool{
	"runtime.memequal": true, "runtime.memequal_varlen": true, "memeqbody": true,
	"runtime.cmpstring": true, "cmpbody": true,
	"runtime.memmove": true, "runtime.memclrNoHeapPointers": true,
	"runtime.asyncPreempt": true,
}

// mergeRuntime merges the runtime's internals in a stack of normalized names
// (leaf first). Each run of consecutive runtime frames becomes its entry
// point: the outermost frame of the run that is not a stack root. So the
// allocator's dozen helpers under an append count as runtime.growslice, and
// the garbage collector's background work as runtime.gcBgMarkWorker. An
// entry point in foldIntoCaller disappears into its caller.
func mergeRuntime(stack []string) []string {
	var merged []string
	for i := 0; i < len(stack); {
		if !isRuntime(stack[i]) {
			merged = append(merged, stack[i])
			i++
			continue
		}
		end := i
		for end < len(stack) && isRuntime(stack[end]) {
			end++
		}
		entry := entryPoint(stack[i:end])
		if !(foldIntoCaller[entry] && end < len(stack)) {
			merged = append(merged, entry)
		}
		i = end
	}
	return merged
}

// entryPoint is the outermost frame of run (leaf first) that is not a stack
// root, or the outermost frame if all of them are.
func entryPoint(run []string) string {
	for k := len(run) - 1; k >= 0; k-- {
		if !stackRoots[run[k]] {
			return run[k]
		}
	}
	return run[len(run)-1]
}

// frame is one call in a normalized stack.
type frame struct{ name, file string }

// stack is the sample's call stack, leaf first, inlined calls included,
// with names normalized and the runtime merged.
func (n normalizer) stack(s *profile.Sample) []frame {
	var names []string
	files := map[string]string{}
	for _, loc := range s.Location {
		if len(loc.Line) == 0 { // not symbolized: only an address is known
			names = append(names, fmt.Sprintf("0x%x", loc.Address))
		}
		for _, line := range loc.Line { // innermost inlined call first
			name := n.name(line.Function.Name)
			names = append(names, name)
			files[name] = n.file(name, line.Function.Filename)
		}
	}
	var frames []frame
	for _, name := range mergeRuntime(names) {
		frames = append(frames, frame{name, files[name]})
	}
	return frames
}

// normalize returns p rewritten at the level of functions: one location per
// normalized function name, samples with the same stack merged. Addresses,
// line numbers and mappings are gone; what is left lines up across stages,
// and is still a profile that go tool pprof opens (for -diff_base too).
func (n normalizer) normalize(p *profile.Profile) *profile.Profile {
	out := &profile.Profile{
		SampleType:        p.SampleType,
		DefaultSampleType: p.DefaultSampleType,
		PeriodType:        p.PeriodType,
		Period:            p.Period,
		TimeNanos:         p.TimeNanos,
		DurationNanos:     p.DurationNanos,
		Comments:          p.Comments,
	}
	locations := map[string]*profile.Location{}
	for _, s := range p.Sample {
		var stack []*profile.Location
		for _, f := range n.stack(s) {
			loc := locations[f.name]
			if loc == nil {
				id := uint64(len(locations) + 1)
				fn := &profile.Function{ID: id, Name: f.name, SystemName: f.name, Filename: f.file}
				loc = &profile.Location{ID: id, Line: []profile.Line{{Function: fn}}}
				locations[f.name] = loc
				out.Location = append(out.Location, loc)
				out.Function = append(out.Function, fn)
			}
			stack = append(stack, loc)
		}
		out.Sample = append(out.Sample, &profile.Sample{Location: stack, Value: s.Value})
	}
	return out.Compact()
}
