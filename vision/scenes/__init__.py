"""Generators of labelled camera scenes, so recognisers can be trained and judged on many more
images than the few real photos (DESIGN section 7); `vision.scenes.dice` renders dice tables.
"""
