//go:build !amd64

package observe

import "runtime"

// Other architectures have no PAUSE; arm64's YIELD is a hint of another kind, not timed here.
func pauseTicks(n int64) int64 { return 0 }

const havePause = false

var noPause = "no PAUSE instruction on " + runtime.GOARCH
