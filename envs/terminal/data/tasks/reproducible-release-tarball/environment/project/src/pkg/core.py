def tide(h):
    return h * 2
