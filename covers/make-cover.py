# Draws covers/cover.jpg for the sample book: ink-dark background, a vermilion seal band,
# the title set vertically in Noto Serif CJK Bold, the author beneath.
from PIL import Image, ImageDraw, ImageFont
W, H = 1600, 2560
img = Image.new("RGB", (W, H), (24, 28, 38))
d = ImageDraw.Draw(img)
# subtle vertical gradient
for y in range(H):
    t = y / H
    c = (int(24 + 30 * t), int(28 + 14 * t), int(38 + 6 * t))
    d.line([(0, y), (W, y)], fill=c)
# distant mountains
import math
for layer, (col, amp, base) in enumerate([((46, 52, 66), 120, 1900), ((36, 40, 52), 160, 2080), ((28, 30, 40), 90, 2280)]):
    pts = [(0, H)]
    for x in range(0, W + 1, 20):
        y = base - amp * (0.5 + 0.5 * math.sin(x / 180.0 + layer * 1.7)) * (0.6 + 0.4 * math.sin(x / 67.0 + layer))
        pts.append((x, y))
    pts.append((W, H))
    d.polygon(pts, fill=col)
# sun
d.ellipse([1060, 420, 1360, 720], fill=(178, 58, 42))
# frame
d.rectangle([60, 60, W - 60, H - 60], outline=(196, 164, 108), width=6)
d.rectangle([84, 84, W - 84, H - 84], outline=(196, 164, 108), width=2)
title_font = ImageFont.truetype("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 250, index=2)
small = ImageFont.truetype("/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc", 90, index=2)
title = "安西烽火"
x, y = 480, 360
for ch in title:
    d.text((x, y), ch, font=title_font, fill=(240, 232, 214), anchor="mt")
    y += 300
# author, vertical, smaller, to the left
ax, ay = 230, 1300
for ch in "佚名　著":
    d.text((ax, ay), ch, font=small, fill=(196, 164, 108), anchor="mt")
    ay += 110
# seal
d.rectangle([1180, 1950, 1380, 2150], fill=(178, 58, 42))
seal = ImageFont.truetype("/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc", 80, index=2)
for i, ch in enumerate("安西"):
    d.text((1280, 1965 + i * 90), ch, font=seal, fill=(240, 232, 214), anchor="mt")
import os
img.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "cover.jpg"), quality=88, optimize=True, progressive=False)
