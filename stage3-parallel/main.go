// Command stage3-parallel serves the user list with a hand-written encoder
// that appends into a reserved, reused body. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage3-parallel", New) }
