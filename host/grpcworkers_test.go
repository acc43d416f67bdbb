package host_test

import (
	"context"
	goruntime "runtime"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	a2av1 "github.com/a2agen/a2agen/a2a/v1"
	"github.com/a2agen/a2agen/host"
	"github.com/a2agen/a2agen/server"
)

// TestGRPCCallsBeyondTheWorkersAllRun: the gRPC listener serves calls on a
// few long-lived workers (Limits.GRPCServerOptions); calls that find them
// all busy must still run at once, so that long calls — blocking sends,
// streams — never hold up the others. Each call's skill waits until every
// call has reached it: were a call queued behind the busy workers, none
// would finish.
func TestGRPCCallsBeyondTheWorkersAllRun(t *testing.T) {
	calls := goruntime.GOMAXPROCS(0) + 4
	var arrived sync.WaitGroup
	arrived.Add(calls)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	_, grpcAddr := startSkillAgent(t, host.Limits{}, func(ctx context.Context, req *server.Request, ev *server.Events) error {
		arrived.Done()
		select {
		case <-all:
			return ev.Reply(server.AgentMessage(req.Text()))
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	cc, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	c := a2av1.NewA2AServiceGRPCClientFromConn(cc)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	errs := make(chan error, calls)
	for range calls {
		go func() {
			_, err := c.SendMessage(ctx, a2av1.NewSendMessageRequest(a2av1.NewTextMessage("hi")))
			errs <- err
		}()
	}
	for range calls {
		if err := <-errs; err != nil {
			t.Fatalf("one of %d concurrent blocking calls: %v (calls queued behind busy workers?)", calls, err)
		}
	}
}
