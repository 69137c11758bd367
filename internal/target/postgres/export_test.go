package postgres

// SetLockDatabase names the database the study lock is taken in, for a test; the returned func
// puts it back.
func SetLockDatabase(name string) (restore func()) {
	was := lockDatabase
	lockDatabase = name
	return func() { lockDatabase = was }
}
