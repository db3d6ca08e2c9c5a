package results_test

import (
	"fmt"

	"example.com/userperf/scripts/internal/results"
)

// Compare decides a step: the base stage, its A/A pair (the same binary measured again in the same
// rounds) and the other stage, each with six CPU times of one benchmark; Verdict says it.
func ExampleCompare() {
	cpu := func(name string, values ...float64) *results.File {
		return results.NewFile(name, nil, map[results.Measurement][]float64{{Bench: "ListByRole", Unit: "cpu-sec/op"}: values})
	}
	base := cpu("stage0-linear", 440e-6, 452e-6, 431e-6, 447e-6, 460e-6, 438e-6)
	again := cpu("stage0-linear.again", 446e-6, 437e-6, 455e-6, 441e-6, 433e-6, 450e-6)
	other := cpu("stage1-index", 291e-6, 300e-6, 288e-6, 297e-6, 305e-6, 294e-6)
	c, err := results.Compare(base, again, other, "ListByRole")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(results.FirstLine(c.Verdict(base.Name)))
	// Output:
	// 1.51x faster than stage0-linear in CPU time: decided, 95% CI [1.46x, 1.55x], A/A CI [0.97x, 1.03x] holds 1x
}
