# Guest script for the harness self-test: never finishes.
echo "hang: guest script is running and will now hang"
while :; do sleep 1000; done
