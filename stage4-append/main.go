// Command stage4-append serves the user list with a hand-written encoder
// that appends into a reserved, reused body. See docs/stage4-append.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("stage4-append", New) }
