print("chrysalis")
