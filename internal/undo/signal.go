package undo

import "syscall"

// syscallZero is signal 0: it checks that a process exists without signalling it.
var syscallZero = syscall.Signal(0)
