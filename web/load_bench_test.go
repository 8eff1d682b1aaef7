package web_test
