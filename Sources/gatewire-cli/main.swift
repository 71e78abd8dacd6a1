print("gatewire")
