"""Hand-built scenes shared by the scene-engine, template and reader tests."""

from __future__ import annotations

from whatifbench.scenes.model import Scene, SceneObject

SQUARE = ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))

# Two overlapping squares: red [50, 250]², blue [150, 350]² (overlap [150, 250]²).
FLOWER_SPOTS = {
    "red-only": [(80, 80), (100, 200)],
    "both": [(200, 200)],
    "blue-only": [(300, 300), (320, 200)],
    "none": [(420, 60), (450, 450), (60, 450)],
}


def flower_scene() -> Scene:
    """Red and blue squares with 2 flowers in red only, 1 in both, 2 in blue only, 3 outside."""
    objects = [
        SceneObject("polygon-1", "polygon", "red", 150, 150, 100, style="tinted",
                    vertices=SQUARE),
        SceneObject("polygon-2", "polygon", "blue", 250, 250, 100, style="tinted",
                    vertices=SQUARE),
    ]
    n = 0
    for spots in FLOWER_SPOTS.values():
        for x, y in spots:
            n += 1
            objects.append(SceneObject(f"flower-{n}", "flower", "pink", x, y, 10,
                                       variant="daisy", accent="yellow"))
    return Scene(512, 512, tuple(objects))


# Six circles: a top row (y 80, 90, 100) and a bottom row (y 300, 310, 320); the two rightmost
# are circle-3 (x 460) and circle-6 (x 440).
CIRCLES = [(100, 80), (300, 90), (460, 100), (100, 300), (300, 310), (440, 320)]
DOTS_PER_CIRCLE = [3, 1, 5, 2, 4, 6]
GRID = [(-17, -9), (0, -9), (17, -9), (-17, 9), (0, 9), (17, 9)]


def dot_scene() -> Scene:
    """Six circles (radius 40) holding 3, 1, 5, 2, 4 and 6 dots."""
    objects = [SceneObject(f"circle-{i}", "circle", "black", x, y, 40, style="outline")
               for i, (x, y) in enumerate(CIRCLES, start=1)]
    n = 0
    for (x, y), count in zip(CIRCLES, DOTS_PER_CIRCLE, strict=True):
        for dx, dy in GRID[:count]:
            n += 1
            objects.append(SceneObject(f"dot-{n}", "dot", "blue", x + dx, y + dy, 6))
    return Scene(512, 512, tuple(objects))


def shapes_scene() -> Scene:
    """Four solid shapes well apart."""
    return Scene(512, 512, (
        SceneObject("square", "square", "red", 100, 100, 30),
        SceneObject("circle", "circle", "blue", 300, 100, 20),
        SceneObject("triangle", "triangle", "green", 200, 300, 25),
        SceneObject("star", "star", "yellow", 400, 300, 30),
        SceneObject("bar", "rectangle", "purple", 100, 420, 40),
    ))
