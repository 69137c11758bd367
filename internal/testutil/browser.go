package testutil

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Chromium finds Debian's chromium, or skips: unless CAIRN_TEST_REQUIRE names chromium (CI does),
// in which case a missing browser fails the test.
func Chromium(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if _, serr := os.Stat("/usr/bin/chromium"); serr == nil {
			return "/usr/bin/chromium"
		}
		if Required("chromium") {
			t.Fatalf("chromium is required (CAIRN_TEST_REQUIRE) but not installed: %v", err)
		}
		t.Skipf("no chromium to open the page in (apt-get install chromium): %v", err)
	}
	return path
}

// Browser starts headless Chromium with a profile of its own in a width × height window and
// returns a tab's context, which ends after timeout or with the test; listen receives the tab's
// DevTools events in its event loop (record and return).
func Browser(t testing.TB, timeout time.Duration, width, height int, listen func(ev any)) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	var tabOpts []chromedp.ContextOption
	if listen != nil {
		tabOpts = append(tabOpts, chromedp.WithListener(listen))
	}
	ctx, cancelTab := chromedp.NewContext(ctx, tabOpts...)
	t.Cleanup(cancelTab)
	return ctx
}
