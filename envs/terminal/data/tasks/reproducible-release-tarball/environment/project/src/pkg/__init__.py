print("tidewater")
