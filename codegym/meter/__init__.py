"""Cost meters: what a program's run costs, counted so that it does not move with machine load.
"""
