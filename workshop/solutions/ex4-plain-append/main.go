// Command ex4-plain-append is exercise 4's reference: stage 3 with a plain
// hand-written encoder that appends each user to the body. See README.md.
package main

import "example.com/userperf/common/api"

func main() { api.Main("ex4-plain-append", New) }
