"""Cameras and recognisers: frames in, observations (a die's face, a card) out."""
