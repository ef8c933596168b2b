// A real sentry-go client for the end-to-end suite.
// Usage: go-client <dsn> <scenario> <marker>; prints {"eventIds": [...]} on stdout.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/getsentry/sentry-go"
)

var errNoStock = errors.New("no stock left")

func reserveItem(id int) error {
	return fmt.Errorf("reserve item %d: %w", id, errNoStock)
}

func placeOrder(id int) error {
	if err := reserveItem(id); err != nil {
		return fmt.Errorf("place order: %w", err)
	}
	return nil
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go-client <dsn> <scenario> <marker>")
		os.Exit(2)
	}
	dsn, scenario, marker := os.Args[1], os.Args[2], os.Args[3]
	if err := sentry.Init(sentry.ClientOptions{
		Dsn:         dsn,
		Release:     "go-client@" + marker,
		Environment: "e2e",
	}); err != nil {
		panic(err)
	}
	sentry.ConfigureScope(func(scope *sentry.Scope) {
		scope.SetUser(sentry.User{ID: "go-user-" + marker})
		scope.SetTag("marker", marker)
	})

	var eventIDs []string
	record := func(id *sentry.EventID) {
		if id != nil {
			eventIDs = append(eventIDs, string(*id))
		}
	}
	switch scenario {
	case "exception":
		for i := 0; i < 3; i++ {
			record(sentry.CaptureException(placeOrder(3000 + i)))
		}
	case "message":
		record(sentry.CaptureMessage("Go message " + marker))
	case "logs":
		logger := sentry.NewLogger(context.Background())
		logger.Info().String("sku", "A-7").Int("quantity", 2).Emit("Go log info " + marker)
		logger.Warn().String("region", "ap").Emit("Go log warn " + marker)
		logger.Error().Emitf("Go log error %s for order %d", marker, 42)
	default:
		fmt.Fprintln(os.Stderr, "unknown scenario "+scenario)
		os.Exit(2)
	}
	if !sentry.Flush(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "flush timed out")
		os.Exit(1)
	}
	out, _ := json.Marshal(map[string][]string{"eventIds": eventIDs})
	fmt.Println(string(out))
}
