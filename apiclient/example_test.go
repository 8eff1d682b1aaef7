package apiclient_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"

	"partneradmin/apiclient"
)

func ExampleNew() {
	_, err := apiclient.New("https://api.example.com/v1", "key")
	fmt.Println(errors.Is(err, apiclient.ErrConfig))
	// Output: true
}

func ExampleIsNotReady() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, `{"statusCode":404,"message":"requested item could not be found"}`)
	}))
	defer srv.Close()
	c, _ := apiclient.New(srv.URL, "key")
	_, err := c.GetSignPayload(context.Background(), "user-1", "proposal-1")
	fmt.Println(apiclient.IsNotReady(err), apiclient.IsNotFound(err))
	// Output: true true
}

func ExampleVerifySignature() {
	secret := "5f1c0a0b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7"
	body := []byte(`{"id":"ev-1","eventType":"employee.linked","payload":{},"timestamp":"2026-01-01T00:00:00Z"}`)
	header := apiclient.SignBody(secret, body)
	fmt.Println(apiclient.VerifySignature(secret, body, header) == nil)
	fmt.Println(errors.Is(apiclient.VerifySignature(secret, append(body, ' '), header), apiclient.ErrWebhookSignature))
	// Output:
	// true
	// true
}

func ExampleStablecoinFor() {
	coin, _ := apiclient.StablecoinFor(apiclient.MXN)
	fiat, _ := apiclient.MXNe.Fiat()
	fmt.Println(coin, fiat, apiclient.MXNe.IsLegacy())
	// Output: MEXe MXN true
}

func ExampleCreateCardRequest_Validate() {
	err := apiclient.CreateCardRequest{CardName: "Travel", CardColor: "blue", Currency: apiclient.NGN, Type: "virtual", SmartWalletID: "w-1", NIN: "123"}.Validate()
	fmt.Println(apiclient.ValidationFields(err)["nin"])
	fmt.Println(err)
	// Output:
	// NIN must be exactly 11 digits
	// apiclient: invalid request: cardColor: must be a hex colour, #RGB or #RRGGBB; nin: NIN must be exactly 11 digits
}
