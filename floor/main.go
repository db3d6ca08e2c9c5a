// Command floor is the limit of this project's HTTP path: the user list API
// served from bodies built before the request arrives. See floor.go.
package main

import "example.com/userperf/common/api"

func main() { api.Main("floor", New) }
